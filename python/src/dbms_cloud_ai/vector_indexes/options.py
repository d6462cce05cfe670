"""The attributes of a vector index (Oracle's CREATE_VECTOR_INDEX attributes).

Each is checked when it is set, with 22023 naming it.  Oracle's
vector_db_provider is "oracle" only (the database's own store: here, this
extension's chunks table), and pipeline_name names the index's refresh (its
row of user_cloud_pipelines): both are stored and shown as Oracle shows them,
with Oracle's defaults (oracle_defaults) filled in at creation.
"""

from __future__ import annotations

import re

from .. import attributes, credentials, db, names, sharing
from ..errors import FeatureNotSupported, InsufficientPrivilege, InvalidParameter
from . import sources

HINT = sources.HINT
# Ranking is the same for all four on unit-length vectors; similarity is reported as cosine.
METRICS = ("COSINE", "DOT", "EUCLIDEAN", "EUCLIDEAN_SQUARED", "L2_SQUARED")
DEFAULTS = {"chunk_size": 1024, "chunk_overlap": 128, "match_limit": 5,
            "similarity_threshold": 0.0, "vector_distance_metric": "COSINE",
            "refresh_rate": 1440}
_TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$#]{0,127}\Z")


def _bad(name: str, why: str, fn: str) -> InvalidParameter:
    return InvalidParameter(f"vector index attribute {name} {why}",
                            hint=f"Correct it in dbms_cloud_ai.{fn}(); {HINT}")


def _int(name, v, lo, hi, fn):
    try:
        return attributes._int(lo, hi)(name, v)
    except InvalidParameter as e:
        raise _bad(name, str(e).removeprefix(f"attribute {name} "), fn) from None


def _number(name, v, lo, hi, fn):
    try:
        return attributes._number(lo, hi)(name, v)
    except InvalidParameter as e:
        raise _bad(name, str(e).removeprefix(f"attribute {name} "), fn) from None


def _text(name, v, fn) -> str:
    if not isinstance(v, str) or not v.strip():
        raise _bad(name, "must be a non-empty string", fn)
    return v.strip()


def parse_value(name: str, v, fn: str):
    """One attribute's value as stored; None removes it (update only)."""
    if v is None:
        return None
    if name == "location":
        if isinstance(v, list):
            if not v:
                raise _bad(name, "must not be an empty list", fn)
            return [sources.parse(_text(name, x, fn), fn).text for x in v]
        return sources.parse(_text(name, v, fn), fn).text
    # Names are kept as given, as Oracle shows them (a quoted one with its quotes),
    # and resolved where they are used (profile(), credentials.api_key).
    if name in ("credential_name", "object_storage_credential_name"):
        names.normalize(_text(name, v, fn), "credential")
        return _text(name, v, fn)
    if name == "profile_name":
        names.normalize(_text(name, v, fn), "profile")
        return _text(name, v, fn)
    if name == "chunk_size":
        return _int(name, v, 32, 32767, fn)
    if name == "chunk_overlap":
        return _int(name, v, 0, 16383, fn)
    if name == "match_limit":      # Oracle's range; 0 retrieves nothing
        return _int(name, v, 0, 8192, fn)
    if name == "similarity_threshold":
        return _number(name, v, 0, 1, fn)
    if name == "refresh_rate":
        return _int(name, v, 1, 525600, fn)
    if name == "vector_dimension":
        return _int(name, v, 1, 16000, fn)
    if name == "vector_distance_metric":
        m = _text(name, v, fn).upper()
        if m not in METRICS:
            raise _bad(name, f"must be one of {', '.join(METRICS)}, not {v!r}", fn)
        return m
    if name == "vector_db_provider":
        p = _text(name, v, fn).lower()
        if p != "oracle":
            raise FeatureNotSupported(
                f"vector index attribute vector_db_provider {v!r} is not supported",
                detail="Only \"oracle\", the database's own vector store, exists here.",
                hint=f"Leave it out or pass \"oracle\" to dbms_cloud_ai.{fn}().")
        return p
    if name == "pipeline_name":
        return _text(name, v, fn)
    if name == "vector_table_name":
        t = _text(name, v, fn)
        if not _TABLE_NAME.match(t):
            raise _bad(name, "must be a simple name (letters, digits, _, $, #)", fn)
        return t
    raise InvalidParameter(f"unknown vector index attribute {name!r}",
                           detail="Valid attributes: " + ", ".join(VALID) + ".", hint=HINT)


VALID = ("location", "credential_name", "object_storage_credential_name", "profile_name",
         "chunk_size", "chunk_overlap", "match_limit", "similarity_threshold",
         "vector_distance_metric", "refresh_rate", "vector_dimension", "vector_table_name",
         "vector_db_provider", "pipeline_name")


def oracle_defaults(index_name: str) -> dict:
    """What Oracle shows for an index created without them."""
    return {"vector_db_provider": "oracle", "refresh_rate": DEFAULTS["refresh_rate"],
            "pipeline_name": f"{index_name}$VECPIPELINE"}


def check_fixed(index_name: str, attrs: dict, changes: dict, fn: str) -> None:
    """pipeline_name is the index's for its life, as in Oracle (22023)."""
    if "pipeline_name" in changes and changes["pipeline_name"] != attrs.get("pipeline_name"):
        raise InvalidParameter(
            f"vector index attribute pipeline_name of {index_name} cannot be changed",
            detail="A vector index keeps the pipeline name it was created with.",
            hint=f"Leave pipeline_name out of dbms_cloud_ai.{fn}().")


def parse_all(raw: dict, fn: str) -> dict:
    return {k.strip().lower(): parse_value(k.strip().lower(), v, fn) for k, v in raw.items()}


def check(attrs: dict, fn: str) -> dict:
    """The whole set, after a create or an update: required ones and relations."""
    for name in ("location", "profile_name"):
        if attrs.get(name) is None:
            raise _bad(name, "is required", fn)
    if credential(attrs) is not None:       # location may be a list of sources
        for src in sources.all_of(attrs):
            if src.kind == "url":
                credentials.require_https(src.text, credential(attrs), "location",
                                          f"Correct it in dbms_cloud_ai.{fn}(); {HINT}")
    size = attrs.get("chunk_size", DEFAULTS["chunk_size"])
    overlap = attrs.get("chunk_overlap", min(DEFAULTS["chunk_overlap"], size // 4))
    if overlap * 2 > size:
        raise _bad("chunk_overlap", f"must be at most half of chunk_size ({size}), not {overlap}", fn)
    return attrs


def value(attrs: dict, name: str):
    if name == "chunk_overlap" and name not in attrs:
        return min(DEFAULTS[name], value(attrs, "chunk_size") // 4)
    return attrs.get(name, DEFAULTS.get(name))


def profile(attrs: dict) -> str:
    """The index's profile as stored in _profile (profile_name is kept as given)."""
    return names.normalize(attrs["profile_name"], "profile")


def credential(attrs: dict) -> str | None:
    return attrs.get("credential_name") or attrs.get("object_storage_credential_name")


class OwnName(str):
    """An index name as own_name returned it: normalised, the caller's own.  Passed on
    within a call, it is not parsed again ('"My Docs"' is My Docs, which parsed again is
    not a name; '"alice.DOCS"' is alice.DOCS, which parsed again is alice's DOCS)."""


def own_name(index_name, plpy) -> OwnName:
    """The caller's own index name; "OWNER"."NAME" of another owner is 42501
    (only owners change, refresh or drop an index; nothing says whether it exists)."""
    if isinstance(index_name, OwnName):
        return index_name
    ref = sharing.parse(index_name, "vector index")
    if ref.owner is not None and ref.owner != db.current_user(plpy):
        raise InsufficientPrivilege(
            f"only the owner of vector index {sharing.display(ref.owner, ref.name)} can change it",
            hint="Create an index of your own with dbms_cloud_ai.create_vector_index().")
    return OwnName(ref.name)
