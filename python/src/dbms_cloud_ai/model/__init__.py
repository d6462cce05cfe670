"""Calling a model: the request, its limits and its record.

The entry points are ``llm`` (one chat call) and ``embeddings`` (one
embedding); ``http`` sends the request under one deadline, ``timing`` computes
that deadline, ``interrupts`` lets PostgreSQL cancel a wait, ``detached`` waits
outside any transaction, ``budget`` and ``spool`` enforce daily token budgets,
``accounting`` records every request, ``usage`` prices and summarises them.
Nothing is imported here.
"""
