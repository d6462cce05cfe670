"""Profile: an AI profile, used synchronously (each method runs one plan of BaseProfile)."""

from collections.abc import Generator, Iterator, Mapping

import pandas

from select_ai._run import run
from select_ai.action import Action
from select_ai.base_profile import BaseProfile, ProfileAttributes
from select_ai.feedback import FeedbackOperation, FeedbackType
from select_ai.provider import Provider
from select_ai.summary import SummaryParams
from select_ai.synthetic_data import SyntheticDataAttributes

__all__ = ["Action", "Profile"]


class Profile(BaseProfile):
    """An AI profile.  Constructing it loads, creates, replaces or merges the profile."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        run(self._plan_init())

    # --- the profile itself ------------------------------------------------------

    @classmethod
    def fetch(cls, profile_name: str, owner: str | None = None) -> "Profile":
        """The saved profile (ProfileNotFoundError when there is none)."""
        return cls(profile_name, owner=owner, raise_error_if_exists=False)

    @classmethod
    def list(cls, profile_name_pattern: str = ".*",
             owner: str | None = None) -> Iterator["Profile"]:
        """Your profiles (or owner's shared ones) whose name matches the regular expression."""
        for name, _description, row_owner in run(cls._plan_list(profile_name_pattern, owner)):
            yield cls(profile_name=name, owner=row_owner, raise_error_if_exists=False,
                      raise_error_on_empty_attributes=False)

    def create(self, replace: bool | None = False) -> None:
        run(self._plan_create(replace=replace))

    def delete(self, force: bool = False) -> None:
        run(self._plan_delete(self.profile_name, force))

    @classmethod
    def delete_profile(cls, profile_name: str, force: bool = False) -> None:
        run(cls._plan_delete(profile_name, force))

    def enable(self) -> None:
        run(self._plan_status(enabled=True))

    def disable(self) -> None:
        run(self._plan_status(enabled=False))

    def grant_access(self, user_or_role_name: str) -> None:
        run(self._plan_access(user_or_role_name, grant=True))

    def revoke_access(self, user_or_role_name: str) -> None:
        run(self._plan_access(user_or_role_name, grant=False))

    def get_attributes(self) -> ProfileAttributes | None:
        return run(self._plan_attributes(self.profile_name, self.owner))

    def set_attribute(self, attribute_name: str,
                      attribute_value: bool | str | int | float | Provider) -> None:
        run(self._plan_set_attribute(attribute_name, attribute_value))

    def set_attributes(self, attributes: ProfileAttributes) -> None:
        run(self._plan_set_attributes(attributes))

    # --- asking the model ----------------------------------------------------------

    def generate(self, prompt: str, action: Action | None = Action.RUNSQL,
                 params: Mapping | None = None, stream: bool = False, chunk_size: int = 8192, *,
                 attributes: Mapping | None = None
                 ) -> pandas.DataFrame | str | Generator[str, None, None] | None:
        """The answer for an action; runsql gives a DataFrame, stream=True an iterator."""
        if stream:
            self._check_stream(action, chunk_size)
            text = run(self._plan_generate(prompt, action, params, attributes))
            return iter(self._chunks(text, chunk_size))
        return run(self._plan_generate(prompt, action, params, attributes))

    def _action(self, action, prompt, params, stream, chunk_size, attributes):
        return self.generate(prompt, action=action, params=params, stream=stream,
                             chunk_size=chunk_size, attributes=attributes)

    def chat(self, prompt: str, params: Mapping | None = None, stream: bool = False,
             chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return self._action(Action.CHAT, prompt, params, stream, chunk_size, attributes)

    def narrate(self, prompt: str, params: Mapping | None = None, stream: bool = False,
                chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return self._action(Action.NARRATE, prompt, params, stream, chunk_size, attributes)

    def explain_sql(self, prompt: str, params: Mapping | None = None, stream: bool = False,
                    chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return self._action(Action.EXPLAINSQL, prompt, params, stream, chunk_size, attributes)

    def show_sql(self, prompt: str, params: Mapping | None = None, stream: bool = False,
                 chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return self._action(Action.SHOWSQL, prompt, params, stream, chunk_size, attributes)

    def show_prompt(self, prompt: str, params: Mapping | None = None, stream: bool = False,
                    chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return self._action(Action.SHOWPROMPT, prompt, params, stream, chunk_size, attributes)

    def run_sql(self, prompt: str, params: Mapping | None = None, *,
                attributes: Mapping | None = None) -> pandas.DataFrame:
        return self.generate(prompt, action=Action.RUNSQL, params=params, attributes=attributes)

    def chat_session(self, conversation, delete: bool = False):
        """A context manager whose session keeps the conversation across calls."""
        from select_ai import conversation as conversations
        return conversations.chat_session(self, conversation, delete)

    def summarize(self, content: str | None = None, prompt: str | None = None, location_uri: str | None = None,
                  credential_name: str | None = None, params: SummaryParams = None) -> str | None:
        return run(self._plan_summarize(content=content, prompt=prompt,
                                        location_uri=location_uri,
                                        credential_name=credential_name, params=params))

    def translate(self, text: str, source_language: str | None = None,
                  target_language: str | None = None) -> str | None:
        return run(self._plan_translate(text, source_language, target_language))

    def generate_synthetic_data(self,
                                synthetic_data_attributes: SyntheticDataAttributes) -> None:
        return run(self._plan_synthetic_data(synthetic_data_attributes))

    # --- feedback ------------------------------------------------------------------

    def add_positive_feedback(self, prompt_spec: tuple[str, Action] | None = None,
                              sql_id: str | None = None) -> None:
        run(self._plan_feedback(FeedbackType.POSITIVE, prompt_spec=prompt_spec, sql_id=sql_id))

    def add_negative_feedback(self, prompt_spec: tuple[str, Action] | None = None,
                              sql_id: str | None = None, response: str | None = None,
                              feedback_content: str | None = None) -> None:
        run(self._plan_feedback(FeedbackType.NEGATIVE, prompt_spec=prompt_spec, sql_id=sql_id,
                                response=response, feedback_content=feedback_content))

    def delete_feedback(self, prompt_spec: tuple[str, Action] | None = None,
                        sql_id: str | None = None) -> None:
        run(self._plan_feedback(prompt_spec=prompt_spec, sql_id=sql_id,
                                operation=FeedbackOperation.DELETE))
