"""Vector indexes: the SDK's VectorIndex and AsyncVectorIndex over the
extension's create/update/drop/enable/disable_vector_index functions and its
all_cloud_vector_index* views.

Every database step is a plan (select_ai._run): the sync and async classes run
the same generators.  Where Oracle refuses something the extension allows (an
attribute that cannot change after creation, a regular expression over 512
bytes), or shows a value the extension leaves unset (the pipeline name, the
provider, the default refresh rate), the rule lives here, named as Oracle's.
"""

from __future__ import annotations

import json
import math
import typing
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

import oracledb
from oracledb.errors import _Error

from select_ai._abc import SelectAIDataClass
from select_ai._run import Sql, arun, run
from select_ai.errors import ProfileNotFoundError, VectorIndexNotFoundError
from select_ai.errors import database_error as ora_error
from select_ai.sql import (
    CREATE_VECTOR_INDEX,
    DISABLE_VECTOR_INDEX,
    DROP_VECTOR_INDEX,
    ENABLE_VECTOR_INDEX,
    GET_ALL_VECTOR_INDEX,
    GET_ALL_VECTOR_INDEX_ATTRIBUTES,
    GET_VECTOR_PIPELINE_LAST_EXECUTION,
    GRANT_VECTOR_INDEX_ACCESS,
    LIST_ALL_VECTOR_INDEXES,
    REVOKE_VECTOR_INDEX_ACCESS,
    UPDATE_VECTOR_INDEX_ATTRIBUTE,
    UPDATE_VECTOR_INDEX_ATTRIBUTES,
    VECTOR_TABLE_EXISTS,
)

__all__ = [
    "AsyncVectorIndex",
    "OracleVectorIndexAttributes",
    "VectorDBProvider",
    "VectorDistanceMetric",
    "VectorIndex",
    "VectorIndexAttributes",
]

# Oracle's limits and rules that the extension does not share.
_MAX_DESCRIPTION = 4000          # ORA-20045 beyond it
_MAX_REGEX_BYTES = 512           # ORA-12733 beyond it
# Fixed at creation in Oracle (ORA-20047 on UPDATE_VECTOR_INDEX); the extension
# would re-chunk at the next refresh, Oracle refuses.
_FIXED_ATTRIBUTES = frozenset({
    "chunk_size", "chunk_overlap", "location", "vector_distance_metric",
    "vector_dimension", "vector_table_name", "vector_db_provider",
    "vector_db_endpoint", "vector_db_credential_name",
})
_DEFAULT_REFRESH_RATE = 1440     # minutes, the extension's default too


class VectorDBProvider(StrEnum):
    ORACLE = "oracle"


class VectorDistanceMetric(StrEnum):
    EUCLIDEAN = "EUCLIDEAN"
    L2_SQUARED = "L2_SQUARED"
    COSINE = "COSINE"
    DOT = "DOT"
    MANHATTAN = "MANHATTAN"
    HAMMING = "HAMMING"


@dataclass
class VectorIndexAttributes(SelectAIDataClass):
    """The attributes of a vector index (CREATE_VECTOR_INDEX's JSON)."""

    chunk_size: int | None = None
    chunk_overlap: int | None = None
    enable_sources: bool | None = None
    location: str | None = None
    match_limit: int | None = None
    object_storage_credential_name: str | None = None
    profile_name: str | None = None
    refresh_rate: int | None = None
    similarity_threshold: float | None = None
    vector_distance_metric: VectorDistanceMetric | None = None
    vector_db_endpoint: str | None = None
    vector_db_credential_name: str | None = None
    vector_db_provider: VectorDBProvider | None = None
    vector_dimension: int | None = None
    vector_table_name: str | None = None
    pipeline_name: str | None = None

    @classmethod
    def create(cls, *, vector_db_provider: str | None = None, **kwargs):
        """The subclass of that provider (OracleVectorIndexAttributes for "oracle")."""
        for subclass in cls.__subclasses__():
            if subclass.vector_db_provider == vector_db_provider:
                return subclass(**kwargs)
        return cls(vector_db_provider=vector_db_provider, **kwargs)

    def json(self, exclude_null: bool = True) -> str:
        return json.dumps({k: _plain(v) for k, v in self.dict(exclude_null=exclude_null).items()})


@dataclass
class OracleVectorIndexAttributes(VectorIndexAttributes):
    """Attributes of an index whose vectors are kept in the database itself."""

    vector_db_provider: VectorDBProvider | None = VectorDBProvider.ORACLE


def _plain(value):
    """A JSON-ready value: enums as their value."""
    return value.value if isinstance(value, StrEnum) else value


_FIELD_TYPES = typing.get_type_hints(VectorIndexAttributes)   # the annotations, resolved


def _bool(text: str) -> bool:
    return text.strip().lower() in ("true", "yes", "y", "t", "1")


def _from_view(name: str, text: str | None):
    """A value of the attributes view (text) as the field's Python type; a value that
    is not of that type (an enum value Oracle does not know) stays text."""
    if text is None:
        return None
    kind = next(t for t in typing.get_args(_FIELD_TYPES[name]) if t is not type(None))
    try:
        if kind is bool:
            return _bool(text)
        if kind is int:
            return int(float(text))
        if issubclass(kind, StrEnum):
            return kind(text.lower() if kind is VectorDBProvider else text.upper())
        return kind(text)
    except ValueError:
        return text


def _attributes_from_rows(index_name: str, rows) -> VectorIndexAttributes:
    values = {}
    for name, text in rows:
        key = name.lower()
        if key == "credential_name":             # the extension's synonym
            key = "object_storage_credential_name"
        if key in _FIELD_TYPES and values.get(key) is None:
            values[key] = _from_view(key, text)
    # What Oracle's view shows for every index and the extension keeps implicit:
    # the vectors are in this database, refreshed by the pipeline <NAME>$VECPIPELINE.
    values.setdefault("vector_db_provider", VectorDBProvider.ORACLE)
    values.setdefault("refresh_rate", _DEFAULT_REFRESH_RATE)
    values.setdefault("pipeline_name", f"{index_name.upper()}$VECPIPELINE")
    provider = values.pop("vector_db_provider")
    return VectorIndexAttributes.create(vector_db_provider=provider, **values)


def _upper(name: str | None) -> str | None:
    return name.upper() if name else None


def _check_name(index_name) -> None:
    """Oracle's ORA-20048 for a missing or non-text index name."""
    if index_name is None or index_name == "":
        raise ora_error(20048, "Missing vector index name")
    if not isinstance(index_name, str):
        raise ora_error(20048, f"Invalid vector index name {index_name!r}")


def _text_value(value) -> str | None:
    """An attribute value as UPDATE_VECTOR_INDEX's VARCHAR2 takes it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, (str, int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise ora_error(20048, f"Invalid attribute value {value!r}")
        return str(value)
    raise oracledb.NotSupportedError(_Error(
        f"DPY-3002: Python value of type \"{type(value).__name__}\" is not supported"))


# --------------------------------------------------------------------- plans
# Each yields Sql and receives its result (select_ai._run); shared by both classes.

def _plan_attributes(index_name, owner):
    if not index_name:
        raise AttributeError("'index_name' is required")
    rows = yield Sql(GET_ALL_VECTOR_INDEX_ATTRIBUTES,
                     {"index_name": _upper(index_name), "owner": owner},
                     fetch="all", topic="vector_index")
    if not rows:
        raise VectorIndexNotFoundError(index_name=index_name)
    return _attributes_from_rows(index_name, rows)


def _plan_description(index_name, owner):
    """(description, owner) of the index; VectorIndexNotFoundError if none."""
    if not index_name:
        raise AttributeError("'index_name' is required")
    row = yield Sql(GET_ALL_VECTOR_INDEX, {"index_name": _upper(index_name), "owner": owner},
                    fetch="one", topic="vector_index")
    if row is None:
        raise VectorIndexNotFoundError(index_name=index_name)
    return row[1], row[2]


def _plan_fetch(index_name, owner):
    description, saved_owner = yield from _plan_description(index_name, owner)
    attributes = yield from _plan_attributes(index_name, saved_owner)
    return description, saved_owner, attributes


def _plan_list(pattern, owner):
    if pattern is not None and not isinstance(pattern, str):
        pattern = str(pattern)                # REGEXP_LIKE converts a number too
    if pattern is not None and len(pattern.encode()) > _MAX_REGEX_BYTES:
        raise ora_error(12733, "regular expression is too long")
    rows = yield Sql(LIST_ALL_VECTOR_INDEXES, {"pattern": pattern, "owner": owner},
                     fetch="all", topic="vector_index.list")
    return [(name, row_owner) for name, _description, row_owner in rows]


def _plan_drop(index_name, include_data, force):
    yield Sql(DROP_VECTOR_INDEX,
              {"index_name": index_name, "include_data": bool(include_data),
               "force": bool(force)},
              topic="vector_index")


def _create_once(params):
    # Oracle creates the vector table <NAME>$VECTAB: a table of that name left by
    # DROP_VECTOR_INDEX(include_data => false) makes the creation fail (ORA-00955).
    attributes = json.loads(params["attributes"])
    table = attributes.get("vector_table_name") or f"{params['index_name'].lower()}$vectab"
    taken = yield Sql(VECTOR_TABLE_EXISTS, {"table_name": table}, fetch="value",
                      topic="vector_index")
    if taken:
        raise ora_error(955, f"name {table} is already used by an existing object")
    try:
        yield Sql(CREATE_VECTOR_INDEX, params, topic="vector_index.create")
    except oracledb.DatabaseError as e:
        raise _credential_error(e) from None


def _credential_error(e: oracledb.DatabaseError) -> oracledb.DatabaseError:
    """A missing credential is DBMS_CLOUD's ORA-20004 in Oracle, not the index's ORA-20048:
    the extension's 42704 says which object is missing in its message ("credential X does
    not exist"), the one thing that tells it from a missing profile."""
    if getattr(e, "sqlstate", None) != "42704":
        return e
    message = e.args[0].message.partition(": ")[2]
    if message.startswith("credential "):
        error = ora_error(20004, message)
        error.sqlstate = e.sqlstate
        return error
    return e


def _plan_create(index_name, attributes_json, description, wait_for_completion, replace):
    _check_name(index_name)
    if description is not None and len(description) > _MAX_DESCRIPTION:
        raise ora_error(20045, f"Vector index description is too long "
                               f"({len(description)} characters, at most {_MAX_DESCRIPTION})")
    params = {"index_name": index_name, "attributes": attributes_json,
              "description": description or None,
              "wait_for_completion": bool(wait_for_completion)}
    try:
        yield from _create_once(params)
    except oracledb.DatabaseError as e:
        # only "already exists" (ORA-20048 also says a name or value is bad)
        if not (replace and getattr(e, "sqlstate", None) == "42710"):
            raise
        yield from _plan_drop(index_name, include_data=True, force=True)
        yield from _create_once(params)


def _plan_set_attribute(index_name, name, value):
    if name.lower() in _FIXED_ATTRIBUTES:
        raise ora_error(20047, f"Vector index attribute {name} cannot be updated")
    try:
        yield Sql(UPDATE_VECTOR_INDEX_ATTRIBUTE,
                  {"index_name": index_name, "attribute_name": name,
                   "attribute_value": _text_value(value)},
                  topic="vector_index.update")
    except oracledb.DatabaseError as e:
        raise _credential_error(e) from None


def _plan_set_attributes(index_name, attributes: VectorIndexAttributes):
    changes = attributes.dict()
    fixed = sorted(k for k in changes if k in _FIXED_ATTRIBUTES)
    if fixed:
        raise ora_error(20047, f"Vector index attributes {', '.join(fixed)} cannot be updated")
    try:
        yield Sql(UPDATE_VECTOR_INDEX_ATTRIBUTES,
                  {"index_name": index_name, "attributes": attributes.json()},
                  topic="vector_index.update")
    except oracledb.DatabaseError as e:
        raise _credential_error(e) from None
    return (yield from _plan_attributes(index_name, None))


def _plan_status(statement, index_name):
    # Oracle's ORA-20000 "already in the desired status" is no error for the SDK;
    # the extension does not raise it.
    yield Sql(statement, {"index_name": index_name}, topic="vector_index.status")


def _plan_access(statement, index_name, user_or_role_name):
    if not isinstance(user_or_role_name, str):
        raise TypeError("'user_or_role_name' must be a string")
    grantee = user_or_role_name.strip()
    if not grantee:
        raise ValueError("'user_or_role_name' cannot be empty")
    yield Sql(statement, {"index_name": index_name, "user_or_role_name": grantee},
              topic="vector_index.access")


def _plan_last_execution(pipeline_name):
    return (yield Sql(GET_VECTOR_PIPELINE_LAST_EXECUTION, {"pipeline_name": pipeline_name},
                      fetch="value", topic="vector_index"))


def _next_refresh(attributes: VectorIndexAttributes, last_execution) -> datetime | None:
    if last_execution is None or attributes.refresh_rate is None:
        return None
    if last_execution.tzinfo is None:
        last_execution = last_execution.replace(tzinfo=UTC)
    return (last_execution + timedelta(minutes=int(attributes.refresh_rate))).astimezone(
        UTC)


# ------------------------------------------------------------------- classes

def _profiles():
    """(BaseProfile, Profile, AsyncProfile), imported when first needed: the profile
    modules import this package's top level, which imports this module."""
    from select_ai.async_profile import AsyncProfile
    from select_ai.base_profile import BaseProfile
    from select_ai.profile import Profile
    return BaseProfile, Profile, AsyncProfile


class _BaseVectorIndex:
    def __init__(
        self,
        profile=None,
        index_name: str | None = None,
        description: str | None = None,
        attributes: VectorIndexAttributes | None = None,
        owner: str | None = None,
    ):
        if attributes is not None and not isinstance(attributes, VectorIndexAttributes):
            raise TypeError("'attributes' must be an object of type "
                            "select_ai.VectorIndexAttributes")
        if profile is not None and not isinstance(profile, _profiles()[0]):
            raise TypeError("'profile' must be an object of type "
                            "select_ai.Profile or select_ai.AsyncProfile")
        self.profile = profile
        self.index_name = index_name
        self.attributes = attributes
        self.description = description
        self.owner = _upper(owner)

    @property
    def qualified_name(self) -> str | None:
        if self.index_name is None:
            return None
        return self.index_name if self.owner is None else f"{self.owner}.{self.index_name}"

    def _create_args(self, replace, wait_for_completion):
        # self.attributes None: AttributeError, as the SDK's
        if self.attributes.profile_name is None:
            self.attributes.profile_name = self.profile.profile_name
        return (self.index_name, self.attributes.json(), self.description,
                wait_for_completion, replace)

    def _pipeline_name(self) -> str:
        return self.attributes.pipeline_name or f"{self.index_name.upper()}$VECPIPELINE"

    def _set_local(self, attribute_name, attribute_value):
        # As the SDK: the local copy first (None attributes: AttributeError,
        # a non-text name: TypeError), then the database.
        setattr(self.attributes, attribute_name, attribute_value)

    def __repr__(self):
        return (f"{type(self).__name__}(profile={self.profile}, index_name={self.index_name}, "
                f"attributes={self.attributes}, description={self.description})")


class VectorIndex(_BaseVectorIndex):
    """A vector index, through blocking calls."""

    @staticmethod
    def _get_attributes(index_name: str, owner: str | None = None) -> VectorIndexAttributes:
        return run(_plan_attributes(index_name, _upper(owner)))

    @staticmethod
    def _get_description(index_name: str, owner: str | None = None):
        return run(_plan_description(index_name, _upper(owner)))

    def create(self, replace: bool | None = False, wait_for_completion: bool = False) -> None:
        run(_plan_create(*self._create_args(replace, wait_for_completion)))
        if self.profile is not None:
            self.profile.set_attribute("vector_index_name", self.index_name)

    @classmethod
    def delete_index(cls, index_name: str, include_data: bool = True, force: bool = False):
        cls(index_name=index_name).delete(include_data=include_data, force=force)

    def delete(self, include_data: bool | None = True, force: bool | None = False) -> None:
        run(_plan_drop(self.index_name, include_data, force))

    def enable(self) -> None:
        run(_plan_status(ENABLE_VECTOR_INDEX, self.index_name))

    def disable(self) -> None:
        run(_plan_status(DISABLE_VECTOR_INDEX, self.index_name))

    def grant_access(self, user_or_role_name: str) -> None:
        run(_plan_access(GRANT_VECTOR_INDEX_ACCESS, self.index_name, user_or_role_name))

    def revoke_access(self, user_or_role_name: str) -> None:
        run(_plan_access(REVOKE_VECTOR_INDEX_ACCESS, self.index_name, user_or_role_name))

    @classmethod
    def fetch(cls, index_name: str, owner: str | None = None) -> VectorIndex:
        description, saved_owner, attributes = run(_plan_fetch(index_name, _upper(owner)))
        try:
            profile = _profiles()[1](profile_name=attributes.profile_name, owner=saved_owner)
        except ProfileNotFoundError:
            profile = None
        return cls(profile=profile, index_name=index_name, description=description,
                   attributes=attributes, owner=saved_owner)

    def set_attribute(self, attribute_name: str,
                      attribute_value: str | int | float) -> None:
        self._set_local(attribute_name, attribute_value)
        run(_plan_set_attribute(self.index_name, attribute_name, attribute_value))

    def set_attributes(self, attributes: VectorIndexAttributes = None) -> None:
        self.attributes = run(_plan_set_attributes(self.index_name, attributes))

    def get_attributes(self) -> VectorIndexAttributes:
        return self._get_attributes(self.index_name, self.owner)

    def get_next_refresh_timestamp(self) -> datetime | None:
        """When the next scheduled refresh is due (UTC), from the last run of its pipeline."""
        if not self.index_name:
            raise AttributeError("'index_name' is required")
        self.attributes = self.attributes or self.get_attributes()
        if self.attributes.refresh_rate is None:
            return None
        last = run(_plan_last_execution(self._pipeline_name()))
        return _next_refresh(self.attributes, last)

    def get_profile(self):
        attributes = self._get_attributes(self.index_name, self.owner)
        return _profiles()[1](profile_name=attributes.profile_name, owner=self.owner)

    @classmethod
    def list(cls, index_name_pattern: str = ".*",
             owner: str | None = None) -> Iterator[VectorIndex]:
        for name, row_owner in run(_plan_list(index_name_pattern, _upper(owner))):
            yield cls.fetch(index_name=name, owner=row_owner)


class AsyncVectorIndex(_BaseVectorIndex):
    """A vector index, through asyncio calls."""

    @staticmethod
    async def _get_attributes(index_name: str,
                              owner: str | None = None) -> VectorIndexAttributes:
        return await arun(_plan_attributes(index_name, _upper(owner)))

    @staticmethod
    async def _get_description(index_name: str, owner: str | None = None):
        return await arun(_plan_description(index_name, _upper(owner)))

    async def create(self, replace: bool | None = False,
                     wait_for_completion: bool | None = False) -> None:
        await arun(_plan_create(*self._create_args(replace, wait_for_completion)))
        if self.profile is not None:
            await self.profile.set_attribute("vector_index_name", self.index_name)

    async def delete(self, include_data: bool | None = True,
                     force: bool | None = False) -> None:
        await arun(_plan_drop(self.index_name, include_data, force))

    @classmethod
    async def delete_index(cls, index_name: str, include_data: bool = True,
                           force: bool = False):
        await cls(index_name=index_name).delete(include_data=include_data, force=force)

    async def enable(self) -> None:
        await arun(_plan_status(ENABLE_VECTOR_INDEX, self.index_name))

    async def disable(self) -> None:
        await arun(_plan_status(DISABLE_VECTOR_INDEX, self.index_name))

    async def grant_access(self, user_or_role_name: str) -> None:
        await arun(_plan_access(GRANT_VECTOR_INDEX_ACCESS, self.index_name, user_or_role_name))

    async def revoke_access(self, user_or_role_name: str) -> None:
        await arun(_plan_access(REVOKE_VECTOR_INDEX_ACCESS, self.index_name, user_or_role_name))

    @classmethod
    async def fetch(cls, index_name: str, owner: str | None = None) -> AsyncVectorIndex:
        description, saved_owner, attributes = await arun(_plan_fetch(index_name, _upper(owner)))
        try:
            profile = await _profiles()[2](profile_name=attributes.profile_name,
                                           owner=saved_owner)
        except ProfileNotFoundError:
            profile = None
        return cls(profile=profile, index_name=index_name, description=description,
                   attributes=attributes, owner=saved_owner)

    async def set_attribute(self, attribute_name: str,
                            attribute_value: str | int | float) -> None:
        self._set_local(attribute_name, attribute_value)
        await arun(_plan_set_attribute(self.index_name, attribute_name, attribute_value))

    async def set_attributes(self, attributes: VectorIndexAttributes) -> None:
        self.attributes = await arun(_plan_set_attributes(self.index_name, attributes))

    async def get_attributes(self) -> VectorIndexAttributes:
        return await self._get_attributes(self.index_name, self.owner)

    async def get_next_refresh_timestamp(self) -> datetime | None:
        """When the next scheduled refresh is due (UTC), from the last run of its pipeline."""
        if not self.index_name:
            raise AttributeError("'index_name' is required")
        self.attributes = self.attributes or await self.get_attributes()
        if self.attributes.refresh_rate is None:
            return None
        last = await arun(_plan_last_execution(self._pipeline_name()))
        return _next_refresh(self.attributes, last)

    async def get_profile(self):
        attributes = await self._get_attributes(self.index_name, self.owner)
        return await _profiles()[2](profile_name=attributes.profile_name, owner=self.owner)

    @classmethod
    async def list(cls, index_name_pattern: str = ".*",
                   owner: str | None = None) -> AsyncGenerator[AsyncVectorIndex, None]:
        for name, row_owner in await arun(_plan_list(index_name_pattern, _upper(owner))):
            yield await cls.fetch(index_name=name, owner=row_owner)

