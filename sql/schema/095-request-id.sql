-- A client's request id (generate params "request_id") names one turn of its
-- owner's conversations, so a client that retries a call (its connection
-- dropped, it timed out) gets the stored turn back instead of a second one.
-- The unique index settles two calls in flight with the same id at insert
-- time: no lock is held while the model answers (generate.py).  Added after
-- the columns of 060 and 090 so a fresh install and an updated one agree.
alter table dbms_cloud_ai._conversation_prompt
    add column request_id text check (pg_catalog.length(request_id) between 1 and 200);
create unique index _conversation_prompt_request_id on dbms_cloud_ai._conversation_prompt
    (owner, request_id) where request_id is not null;
