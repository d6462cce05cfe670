"""Oracle's GENERATE_SYNTHETIC_DATA: rows a model invents for the caller's tables.

``params``   the arguments and params, validated before anything else;
``tables``   the named tables as PostgreSQL resolves them, their definitions,
             sample rows, statistics and existing parent keys, read as the caller;
``prompt``   what the model is told and how its JSON answer becomes rows;
``run``      batches, one prepared INSERT per table, counts.

docs/reference/synthetic-data.md says what is sent and what is written.
"""
