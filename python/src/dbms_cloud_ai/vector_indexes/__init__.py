"""Retrieval-augmented answers: Oracle's vector indexes (issue 19).

options.py   the index attributes and their checks
indexes.py   create, update, drop, enable, disable, grant, revoke (the SQL API)
sources.py   where documents come from (table rows, URLs) and how they are chunked
refresh.py   embedding the chunks that changed, on demand or by pg_cron
retrieve.py  the closest chunks to a question (full-text candidates re-ranked by cosine)
narrate.py   narrate over a profile's vector_index_name, with sources
"""
