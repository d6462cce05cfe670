"""CREATE_VECTOR_INDEX and the other procedures of Oracle's vector index API.

An index belongs to the role that created it; its profile_name names one of
the owner's profiles, whose embedding_model and credential embed the chunks.
Grants mirror profile sharing (sharing.py): a grantee (a role, its members, or
PUBLIC) reads the index and its chunks and narrates over them as
"OWNER"."NAME"; only the owner changes, refreshes or drops it.
"""

from __future__ import annotations

import json

from .. import attributes, credentials, db, jsontext, sharing, writer
from ..errors import DuplicateObject, InvalidParameter, UndefinedObject
from ..model import embeddings
from . import keep, options, schedule, sources

_HINT_CREATE = "Create it with dbms_cloud_ai.create_vector_index(index_name, attributes)."


def _name(index_name, plpy) -> str:
    return options.own_name(index_name, plpy)


def _own(plpy, index_name, missing_ok: bool = False) -> dict | None:
    name = _name(index_name, plpy)
    row = db.one(plpy, """
        select index_id::text as index_id, index_name, attributes::text as attributes, status
          from dbms_cloud_ai._vector_index
         where owner = current_user and index_name = $1""", ("text",), (name,))
    if row is None:
        if missing_ok:
            return None
        raise UndefinedObject(f'vector index "{name}" does not exist', hint=_HINT_CREATE)
    return {**row, "index_name": options.OwnName(row["index_name"]),
            "attrs": json.loads(row["attributes"])}


def _check_profile(plpy, attrs: dict, fn: str) -> None:
    """The owner's own profile, with an embedding_model."""
    row = db.one(plpy, "select attributes->>'embedding_model' as model, attributes->>'provider' "
                       "as provider from dbms_cloud_ai._profile "
                       "where owner = current_user and profile_name = $1",
                 ("text",), (options.profile(attrs),))
    if row is None:
        raise UndefinedObject(f'profile "{options.profile(attrs)}" of vector index attribute '
                              "profile_name does not exist",
                              hint="Name one of your profiles: dbms_cloud_ai.create_profile().")
    if not row["model"] and not embeddings.model_of({"provider": row["provider"]}):
        raise InvalidParameter(
            f'vector index attribute profile_name: profile "{options.profile(attrs)}" has no '
            "embedding_model",
            hint="Set it with dbms_cloud_ai.set_attribute(profile_name, 'embedding_model', ...), "
                 f"then call dbms_cloud_ai.{fn}() again.")


def _check_credential(plpy, attrs: dict) -> None:
    """The credential for the sources is one of the owner's when it is named (42704, as
    Oracle refuses it at creation); dropped later, the refresh fails instead."""
    if options.credential(attrs) is not None:
        credentials.require(plpy, options.credential(attrs))


def create(plpy, index_name, attributes_json, description, wait_for_completion) -> None:
    fn = "create_vector_index"
    name = _name(index_name, plpy)
    attrs = {k: v for k, v in options.parse_all(
        attributes.parse_json_object(attributes_json, "attributes"), fn).items() if v is not None}
    attrs = {**options.oracle_defaults(name), **attrs}
    options.check(attrs, fn)
    _check_profile(plpy, attrs, fn)
    _check_credential(plpy, attrs)
    if _own(plpy, name, missing_ok=True) is not None:
        raise DuplicateObject(f'vector index "{name}" already exists',
                              hint="Drop it with dbms_cloud_ai.drop_vector_index(), or change it "
                                   "with dbms_cloud_ai.update_vector_index().")
    writer.query(plpy, """
        insert into dbms_cloud_ai._vector_index (index_name, description, attributes)
        values ($1, $2, $3::jsonb)""", ("text", "text", "text"),
                 (name, description, json.dumps(attrs)))
    schedule.set(plpy, name, options.value(attrs, "refresh_rate"))
    if wait_for_completion is None or wait_for_completion:
        # An Object Storage location: the index is created (as Oracle's), its
        # refresh recorded as failed; refresh_vector_index() raises the error.
        unreadable = sources.unreadable(name, attrs)
        if unreadable is not None:
            schedule.record_failed(plpy, name, unreadable)
        else:
            schedule.refresh_now(plpy, name)


def update(plpy, index_name, changes: dict, fn: str) -> None:
    row = _own(plpy, index_name)
    parsed = options.parse_all(changes, fn)
    options.check_fixed(row["index_name"], row["attrs"], parsed, fn)
    attrs = {k: v for k, v in {**row["attrs"], **parsed}.items() if v is not None}
    options.check(attrs, fn)
    if "profile_name" in parsed:
        _check_profile(plpy, attrs, fn)
    if parsed.keys() & {"credential_name", "object_storage_credential_name"}:
        _check_credential(plpy, attrs)
    writer.query(plpy, """
        update dbms_cloud_ai._vector_index set attributes = $2::jsonb, modified = pg_catalog.now()
         where index_id = $1::uuid and owner = dbms_cloud_ai._caller()""",
                 ("text", "text"), (row["index_id"], json.dumps(attrs)))
    if "refresh_rate" in parsed:
        schedule.set(plpy, row["index_name"], options.value(attrs, "refresh_rate"))


def update_one(plpy, index_name, attribute_name, attribute_value) -> None:
    if attribute_name is None or not attribute_name.strip():
        raise InvalidParameter("attribute_name must not be empty",
                               hint="Pass an attribute of dbms_cloud_ai.create_vector_index().")
    value = attribute_value
    if isinstance(value, str):
        try:    # numbers and JSON arrays arrive as text (Oracle's VARCHAR2 value)
            parsed = jsontext.loads(value)     # too deep: ValueError, the text as it is
            if isinstance(parsed, (int, float, list)) and not isinstance(parsed, bool):
                value = parsed
        except ValueError:
            pass
    update(plpy, index_name, {attribute_name: value}, "update_vector_index")


def update_all(plpy, index_name, attributes_json) -> None:
    update(plpy, index_name, attributes.parse_json_object(attributes_json, "attributes"),
           "update_vector_index")


def drop(plpy, index_name, include_data, force, schema_name=None) -> None:
    """The index, its chunks and its grants; without include_data (Oracle's
    default) the chunks are first kept as a table of the caller's (keep.py)."""
    row = _own(plpy, index_name, missing_ok=bool(force))
    if row is None:
        return
    if not include_data:
        keep.keep(plpy, row, *keep.check(plpy, row, schema_name))
    schedule.clear(plpy, row["index_name"])
    # Its HNSW index (pgvector) is dropped by the next maintenance, in a
    # transaction of its own (ann.maintain), not in the caller's: issue 30, class 3.
    writer.query(plpy, "delete from dbms_cloud_ai._vector_index "
                       "where index_id = $1::uuid and owner = dbms_cloud_ai._caller()",
                 ("text",), (row["index_id"],))


def set_status(plpy, index_name, enabled: bool) -> None:
    row = _own(plpy, index_name)
    writer.query(plpy, """
        update dbms_cloud_ai._vector_index set status = $2, modified = pg_catalog.now()
         where index_id = $1::uuid and owner = dbms_cloud_ai._caller()""",
                 ("text", "text"), (row["index_id"], "ENABLED" if enabled else "DISABLED"))


def grant(plpy, index_name, user_or_role_name) -> None:
    row = _own(plpy, index_name)
    grantee, oid = sharing.grantee(plpy, user_or_role_name,
                                   granting=f"vector index {row['index_name']}")
    writer.query(plpy, """
        insert into dbms_cloud_ai._vector_index_grant (index_id, grantee, grantee_oid)
        values ($1::uuid, $2, $3) on conflict (index_id, grantee_oid) do nothing""",
                 ("text", "text", "oid"), (row["index_id"], grantee, oid))


def revoke(plpy, index_name, user_or_role_name) -> None:
    row = _own(plpy, index_name)
    grantee, oid = sharing.grantee(plpy, user_or_role_name)
    if writer.one(plpy, """
            delete from dbms_cloud_ai._vector_index_grant
             where index_id = $1::uuid and grantee_oid = $2 and owner = dbms_cloud_ai._caller()
            returning 1 as x""", ("text", "oid"), (row["index_id"], oid)) is None:
        raise UndefinedObject(f"vector index {row['index_name']} is not shared with {grantee}",
                              hint="List its grants in dbms_cloud_ai.user_cloud_vector_index_grants.")
