-- dbms_cloud credentials (Oracle DBMS_CLOUD.CREATE_CREDENTIAL and friends).
-- Functions, not procedures: PostgreSQL 15 keeps CALL literals verbatim in
-- pg_stat_statements, while a SELECT's constants are normalised away.

create function dbms_cloud.create_credential(credential_name text, username text default null,
    password text default null, user_ocid text default null, tenancy_ocid text default null,
    private_key text default null, fingerprint text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.create_credential(plpy, credential_name, username, password,
                                                        user_ocid, tenancy_ocid, private_key,
                                                        fingerprint)
$python$;
comment on function dbms_cloud.create_credential(text, text, text, text, text, text, text) is
'Store a secret under credential_name for the calling role, never to be read back: username and password (an API key), or Oracle''s OCI API signing key (user_ocid, tenancy_ocid, private_key, fingerprint)';

create function dbms_cloud.drop_credential(credential_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.drop_credential(plpy, credential_name)
$python$;
comment on function dbms_cloud.drop_credential(text) is 'Drop one of your credentials';

create function dbms_cloud.update_credential(credential_name text, attribute text, value text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.update_credential(plpy, credential_name, attribute, value)
$python$;
comment on function dbms_cloud.update_credential(text, text, text) is
'Change one attribute of a credential: username or password; user_ocid, tenancy_ocid, private_key or fingerprint of an OCI API-key credential';

create function dbms_cloud.enable_credential(credential_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.enable_credential(plpy, credential_name)
$python$;
comment on function dbms_cloud.enable_credential(text) is 'Enable a credential';

create function dbms_cloud.disable_credential(credential_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.disable_credential(plpy, credential_name)
$python$;
comment on function dbms_cloud.disable_credential(text) is 'Disable a credential: profiles using it stop working';

create view dbms_cloud.user_credentials with (security_invoker = true) as
select credential_name, username, enabled, created, modified
  from dbms_cloud._credential
 where owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud.user_credentials is 'Your credentials (never the secret)';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud._credential to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud._credential to dbms_cloud_ai_admin;
grant select on dbms_cloud.user_credentials to dbms_cloud_ai_user;
