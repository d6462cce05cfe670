-- The write path (issue 14, class 2; python/src/dbms_cloud_ai/writer.py).
-- Ordinary roles hold no INSERT, UPDATE or DELETE on the extension's tables;
-- every write of an API call runs here, as dbms_cloud_ai_owner, for the role
-- that called.  It takes no SQL and no values: it runs the one statement that
-- the package, in this same backend, put in its own memory a moment before,
-- with a one-time token that no SQL role can read.  Called directly: 42501.
-- The package's call (writer._CALL) computes the caller's name, its binding and
-- OID, and sets dbms_cloud_ai.caller, before the call switches to the owner role.
-- Its statements keep one generic plan per backend: planned for each call's
-- parameters, with the row-level security policies expanded, an INSERT into
-- _model_call cost 350 us of planning per call.
create function dbms_cloud_ai._write(token text, caller name, bound oid, mine oid)
returns void language plpython3u volatile parallel unsafe security definer
set search_path to pg_catalog, pg_temp
set plan_cache_mode to force_generic_plan
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.write(plpy, token, caller, bound, mine)
$python$;
alter function dbms_cloud_ai._write(text, name, oid, oid) owner to dbms_cloud_ai_owner;
comment on function dbms_cloud_ai._write(text, name, oid, oid) is
'Internal: runs the write the package authorised, as dbms_cloud_ai_owner for the calling role';
