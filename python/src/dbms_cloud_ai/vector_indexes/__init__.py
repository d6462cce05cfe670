"""Retrieval-augmented answers: Oracle's vector indexes (issue 19).

indexes.py   create, update, drop, enable, disable, grant, revoke (the SQL API)
options.py   the index attributes and their checks
sources.py   where documents come from (table rows, URLs) and how they are chunked
refresh.py   embedding the chunks that changed, on demand
schedule.py  refresh_rate by pg_cron: one job per index, run as its owner
retrieve.py  the closest chunks to a question (full-text candidates re-ranked by cosine)
ann.py       the pgvector path: an HNSW index per vector index
keep.py      drop_vector_index(include_data => false): the index's data kept as a table
narrate.py   narrate over a profile's vector_index_name, with sources (generate.py's
             narrate row calls it)
"""
