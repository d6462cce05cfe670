-- A client's request id (generate params "request_id") names one turn of its
-- owner's conversations, so a client that retries a call (its connection
-- dropped, it timed out) gets the stored turn back instead of a second one.
-- The unique index settles two calls in flight with the same id at insert
-- time: no lock is held while the model answers (generate.py).  The column
-- request_id is _conversation_prompt's last (050).
create unique index _conversation_prompt_request_id on dbms_cloud_ai._conversation_prompt
    (owner, request_id) where request_id is not null;
