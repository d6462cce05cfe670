"""The actions a profile can ask for (the ``action`` argument of generate)."""

import enum

__all__ = ["Action"]


class Action(enum.StrEnum):
    """Values are the action names the database takes."""

    RUNSQL = "runsql"
    SHOWSQL = "showsql"
    EXPLAINSQL = "explainsql"
    NARRATE = "narrate"
    CHAT = "chat"
    SHOWPROMPT = "showprompt"
    FEEDBACK = "feedback"
    SUMMARIZE = "summarize"
    TRANSLATE = "translate"

    def __str__(self):
        return self.value
