"""What a tool or an agent may name: a function the owner may execute, a
profile the owner may use.

Checked as the caller when the object is created or changed (the code that
runs a team checks again at run time, as the role running it):

- a custom tool's ``function`` is resolved as PostgreSQL resolves a function
  name under the caller's search_path (``pg_catalog`` first unless placed
  elsewhere; never ``pg_temp``); every overload it may mean must be
  executable by the caller (EXECUTE and USAGE on its schema), else 42501.  A name that resolves
  to nothing is accepted, as Oracle accepts it (its SDK's test_3016 creates a
  tool naming a missing function): running the tool fails until it exists.
- a ``profile_name`` (an agent's, a SQL or RAG tool's) is the caller's own
  profile or one shared with it as "OWNER"."NAME" (42704 otherwise).  A
  missing own profile is accepted, as Oracle accepts it (test_3014/3015), and
  so is a RAG tool's profile that names no vector_index_name: Oracle stores it,
  and running the tool refuses it (tools.rag_tool).
"""

from __future__ import annotations

from .. import db, sharing
from ..errors import InsufficientPrivilege, InvalidParameter, UndefinedObject

_FUNCTIONS = """
    select p.oid::int8 as oid, p.oid::regprocedure::text as signature, n.nspname::text as schema,
           pg_catalog.has_function_privilege(p.oid, 'EXECUTE')
             and pg_catalog.has_schema_privilege(n.oid, 'USAGE') as executable,
           pg_catalog.array_position($2::text[], n.nspname::text) as pos
      from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where p.proname = $1 and n.nspname = any ($2::text[]) and p.prokind in ('f', 'p')
     order by pos, p.oid"""
_IDENT = "select pg_catalog.parse_ident($1)::text[] as parts"


def _path(search_path) -> list[str]:
    path = [s for s in (search_path or []) if s and not s.startswith("pg_temp")]
    return path if "pg_catalog" in path else ["pg_catalog", *path]


def name_parts(plpy, name: str) -> list[str]:
    """A function name's parts as PostgreSQL reads them (quoted parts kept as written)."""
    try:
        return db.one(plpy, _IDENT, ("text",), (name,))["parts"]
    except plpy.SPIError:
        raise InvalidParameter(f"invalid function name {name!r}",
                               hint='Name the function as "f" or "schema.f".') from None


def resolve_function(plpy, name: str, search_path) -> list[dict]:
    """The functions ``name`` ("f", "schema.f", quoted parts kept as written)
    may mean under ``search_path`` (a list of schema names): every overload of
    that name in the first schema that has one, each {oid, signature, schema,
    executable}; [] when there is none (which one a call binds to depends on
    its arguments, as in PostgreSQL)."""
    parts = name_parts(plpy, name)
    if len(parts) == 1:
        schemas, fname = _path(search_path), parts[0]
    elif len(parts) == 2:
        schemas, fname = [parts[0]], parts[1]
    else:
        raise InvalidParameter(f"invalid function name {name!r}",
                               hint='Name the function as "f" or "schema.f".')
    rows = db.query(plpy, _FUNCTIONS, ("text", "text[]"), (fname, schemas))
    return [{"oid": r["oid"], "signature": r["signature"], "schema": r["schema"],
             "executable": r["executable"]} for r in rows if r["pos"] == rows[0]["pos"]]


def check_function(plpy, name: str, search_path) -> None:
    """42501 when ``name`` may mean a function the caller may not execute."""
    for found in resolve_function(plpy, name, search_path):
        if not found["executable"]:
            raise InsufficientPrivilege(
                f"permission denied for function {found['signature']}",
                detail="A tool may name only a function its owner may execute.",
                hint="Ask the function's owner for GRANT EXECUTE (and USAGE on its schema), "
                     "or name a function of your own.")


_PROFILE = f"""
    select p.attributes::text as attributes from dbms_cloud_ai._profile p
     where p.profile_name = $1 and p.owner = coalesce($2, current_user) and {sharing.USABLE}"""


def require_profile(plpy, raw: str) -> None:
    """42704 unless ``raw`` names an existing profile the caller may use
    (import_team: the importer names the profile its agents will use)."""
    ref = sharing.parse(raw)
    owner = sharing.resolve_owner(plpy, ref) if ref.owner is not None else None
    if db.one(plpy, _PROFILE, ("text", "text"), (ref.name, owner)) is None:
        raise UndefinedObject(f'profile "{ref.name}" does not exist',
                              hint="Create it with dbms_cloud_ai.create_profile(profile_name, "
                                   "attributes), or name one shared with you as \"OWNER\".\"NAME\".")


def check_profile(plpy, raw: str, what: str) -> None:
    """``raw`` names the caller's own profile or one shared with it (42704
    from sharing.resolve_owner); whether it exists is checked when it is used."""
    ref = sharing.parse(raw)
    if ref.owner is not None:
        sharing.resolve_owner(plpy, ref)
