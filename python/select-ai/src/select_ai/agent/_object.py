"""What tools, tasks, agents and teams share: one table of kinds, the plans every kind runs
(create, drop, enable, disable, set attributes, fetch, list), and the sync and async methods
that drive them (select_ai._run).

Each plan calls a DBMS_CLOUD_AI_AGENT subprogram, here a function of the extension's schema
dbms_cloud_ai_agent, by named notation with only the arguments the caller gave, so the
database's defaults apply as Oracle's do.  A failure carries the kind as its topic, which
select_ai.errors.ORA_CODES turns into the kind's ORA number (20050 agent ... 20053 team).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

import oracledb
from psycopg import sql as pgsql

from select_ai._run import Sql, arun, run

SCHEMA = "dbms_cloud_ai_agent"
DUPLICATE = "42710"  # the SQLSTATE of a create whose name is taken


@dataclass(frozen=True)
class Kind:
    topic: str            # the errors table's topic, and SET_ATTRIBUTE's object_type
    name_arg: str         # the subprograms' name argument, and the Python attribute
    view: str             # USER_AI_AGENTS, USER_AI_AGENT_TASKS, ...
    attributes_view: str  # USER_AI_AGENT_ATTRIBUTES, USER_AI_AGENT_TASK_ATTRIBUTES, ...
    name_column: str      # their name column (teams: agent_team_name)
    not_found: type       # the SDK's exception for a name no object has


def call(function: str, topic: str, fetch: str = "none", keep_null: tuple = (), **arguments) -> Sql:
    """SELECT dbms_cloud_ai_agent.<function>(name => value, ...) of the arguments not None
    (and those of keep_null, as NULL: the database says what a NULL there means)."""
    given = {k: v for k, v in arguments.items() if v is not None or k in keep_null}
    args = pgsql.SQL(", ").join(
        pgsql.SQL("{} => {}").format(pgsql.Identifier(k), pgsql.Placeholder(k)) for k in given)
    text = pgsql.SQL("SELECT {}({})").format(pgsql.Identifier(SCHEMA, function), args)
    return Sql(text, given, fetch=fetch, topic=topic)


def _view(kind: Kind, attributes: bool) -> pgsql.Composable:
    return pgsql.Identifier(SCHEMA, kind.attributes_view if attributes else kind.view)


def _value_text(value: Any) -> str | None:
    """SET_ATTRIBUTE takes text: JSON for lists, mappings and booleans, as Oracle's does."""
    if value is None or isinstance(value, str):
        return value
    if hasattr(value, "dict"):
        value = value.dict()
    return json.dumps(value)


def known(attributes_class, rows: dict) -> dict:
    """Only the attributes the class knows: a newer server may show more."""
    names = {f.name for f in fields(attributes_class)}
    return {k.lower(): v for k, v in rows.items() if k.lower() in names}


class AgentObject:
    """The state and plans of one object; subclasses set _kind and _attributes_class."""

    _kind: Kind
    _attributes_class: type

    def _init(self, name, description, attributes):
        if attributes is not None and not isinstance(attributes, self._attributes_class):
            raise TypeError(f"attributes must be an object of type "
                            f"select_ai.agent.{self._attributes_class.__name__}")
        setattr(self, self._kind.name_arg, name)
        self.description = description
        self.attributes = attributes

    @property
    def _name(self):
        return getattr(self, self._kind.name_arg)

    def __repr__(self):
        return (f"{type(self).__name__}({self._kind.name_arg}={self._name}, "
                f"attributes={self.attributes}, description={self.description})")

    @classmethod
    def _from_rows(cls, rows: dict):
        return cls._attributes_class(**known(cls._attributes_class, rows)) if rows else None

    @classmethod
    def _make(cls, name, description, attribute_rows):
        return cls(**{cls._kind.name_arg: name, "description": description,
                      "attributes": cls._from_rows(attribute_rows)})

    # --- plans ------------------------------------------------------------------------

    def _plan_create(self, enabled=True, replace=False):
        kind = self._kind
        if self._name is None:
            raise AttributeError(f"{kind.topic.capitalize()} must have a name")
        if self.attributes is None:
            raise AttributeError(f"{kind.topic.capitalize()} must have attributes")
        create = call(f"create_{kind.topic}", kind.topic, **{
            kind.name_arg: self._name, "attributes": self.attributes.json(),
            "description": self.description or None,
            "status": None if enabled else "disabled"})
        try:
            yield create
        except oracledb.DatabaseError as error:
            if not (replace and getattr(error, "sqlstate", None) == DUPLICATE):
                raise
            yield from self._plan_delete(self._name, force=True)
            yield create

    @classmethod
    def _plan_delete(cls, name, force=False):
        kind = cls._kind
        yield call(f"drop_{kind.topic}", kind.topic, **{kind.name_arg: name, "force": bool(force)})

    def _plan_status(self, enabled: bool):
        kind = self._kind
        verb = "enable" if enabled else "disable"
        yield call(f"{verb}_{kind.topic}", kind.topic, **{kind.name_arg: self._name})

    def _plan_set_attribute(self, attribute_name, attribute_value):
        kind = self._kind
        yield call("set_attribute", kind.topic, object_name=self._name, object_type=kind.topic,
                   attribute_name=attribute_name, attribute_value=_value_text(attribute_value),
                   keep_null=("attribute_value",))
        self.attributes = yield from self._plan_attributes(self._name)

    def _plan_set_attributes(self, attributes):
        if not isinstance(attributes, self._attributes_class):
            raise TypeError(f"attributes must be an object of type "
                            f"select_ai.agent.{self._attributes_class.__name__}")
        kind = self._kind
        yield call("set_attributes", kind.topic, object_name=self._name, object_type=kind.topic,
                   attributes=attributes.json())
        self.attributes = yield from self._plan_attributes(self._name)

    @classmethod
    def _plan_attributes(cls, name):
        kind = cls._kind
        rows = yield Sql(pgsql.SQL("SELECT attribute_name, attribute_value FROM {} WHERE {} = %(name)s")
                         .format(_view(kind, True), pgsql.Identifier(kind.name_column)),
                         {"name": name.upper()}, fetch="all", topic=kind.topic)
        return cls._from_rows(dict(rows))

    @classmethod
    def _plan_fetch(cls, name):
        kind = cls._kind
        row = yield Sql(pgsql.SQL("SELECT description FROM {} WHERE {} = %(name)s")
                        .format(_view(kind, False), pgsql.Identifier(kind.name_column)),
                        {"name": name.upper()}, fetch="one", topic=kind.topic)
        if row is None:
            raise kind.not_found(name)
        attributes = yield from cls._plan_attributes(name)
        return cls(**{kind.name_arg: name, "description": row[0], "attributes": attributes})

    @classmethod
    def _plan_list(cls, pattern=".*"):
        """The objects whose name matches the pattern (REGEXP_LIKE's 'i': case-insensitive)."""
        kind = cls._kind
        column = pgsql.Identifier(kind.name_column)
        rows = yield Sql(pgsql.SQL("SELECT {0}, description FROM {1} WHERE {0} ~* %(pattern)s "
                                   "ORDER BY {0}").format(column, _view(kind, False)),
                         {"pattern": pattern}, fetch="all", topic=kind.topic)
        names = [name for name, _ in rows]
        attribute_rows = yield Sql(
            pgsql.SQL("SELECT {0}, attribute_name, attribute_value FROM {1} WHERE {0} = ANY(%(names)s)")
            .format(column, _view(kind, True)), {"names": names}, fetch="all", topic=kind.topic)
        by_name: dict[str, dict] = {name: {} for name in names}
        for name, attribute, value in attribute_rows:
            by_name[name][attribute] = value
        return [cls._make(name, description, by_name[name]) for name, description in rows]


class SyncMethods:
    """The methods every kind has, run on this thread's connection."""

    def create(self, enabled: bool | None = True, replace: bool | None = False) -> None:
        run(self._plan_create(enabled, replace))

    def delete(self, force: bool | None = False) -> None:
        run(self._plan_delete(self._name, force))

    def enable(self) -> None:
        run(self._plan_status(enabled=True))

    def disable(self) -> None:
        run(self._plan_status(enabled=False))

    def set_attribute(self, attribute_name: str, attribute_value: Any) -> None:
        run(self._plan_set_attribute(attribute_name, attribute_value))

    def set_attributes(self, attributes) -> None:
        run(self._plan_set_attributes(attributes))


class AsyncMethods:
    """The same, awaited."""

    async def create(self, enabled: bool | None = True, replace: bool | None = False) -> None:
        await arun(self._plan_create(enabled, replace))

    async def delete(self, force: bool | None = False) -> None:
        await arun(self._plan_delete(self._name, force))

    async def enable(self) -> None:
        await arun(self._plan_status(enabled=True))

    async def disable(self) -> None:
        await arun(self._plan_status(enabled=False))

    async def set_attribute(self, attribute_name: str, attribute_value: Any) -> None:
        await arun(self._plan_set_attribute(attribute_name, attribute_value))

    async def set_attributes(self, attributes) -> None:
        await arun(self._plan_set_attributes(attributes))
