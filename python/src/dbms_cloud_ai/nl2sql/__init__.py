"""NL2SQL: a question becomes one checked, read-only query over the caller's tables.

The entry point is ``actions`` (runsql, showsql, explainsql, narrate, showprompt):
``schema_context`` describes the tables, ``examples`` adds rated earlier questions,
``sqlguard`` validates the model's SQL, ``resolve`` checks what its names bind
to, ``sqlrun`` runs it.  ``feedback`` rates the answers (rated ones become
examples); ``annotations`` keeps the table and column annotations the schema
context shows.  Nothing is imported here: a chat session never loads this
subpackage (lazy.py).
"""
