-- SUMMARIZE and TRANSLATE (python/src/dbms_cloud_ai/text/actions.py); also
-- generate()'s summarize and translate actions.
--
-- summarize takes the content, or the http(s) URL of a text document
-- (location_uri, fetched only from hosts the host ACL allows, with an optional
-- credential for HTTP Basic authentication).  Oracle's two SDKs spell two of its
-- arguments differently: the Java SDK (and this positional order) uses
-- user_prompt and params, the Python SDK prompt and parameters; both spellings
-- are accepted (one of each pair).  A NULL content (without location_uri) or a
-- NULL text gives NULL without a model call, so that per-row use over a
-- nullable column works.

create function dbms_cloud_ai.summarize(content text default null, location_uri text default null,
                                        credential_name text default null,
                                        profile_name text default null,
                                        user_prompt text default null, params text default null,
                                        prompt text default null, parameters text default null)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.summarize(plpy, content, location_uri, credential_name, profile_name, user_prompt, params, prompt, parameters)
$python$;
comment on function dbms_cloud_ai.summarize(text, text, text, text, text, text, text, text) is
'Summarize content (or the text at location_uri) of any length; params: min_words, max_words, summary_style, chunk_processing_method, extractiveness_level';

create function dbms_cloud_ai.translate(profile_name text default null, text text default null,
                                        source_language text default null,
                                        target_language text default null)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.translate(plpy, profile_name, text, source_language, target_language)
$python$;
comment on function dbms_cloud_ai.translate(text, text, text, text) is
'Translate text of any length; languages as names or ISO 639-1 codes, NULL: the profile''s source_language / target_language (no source: detected)';
