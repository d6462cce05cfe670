"""GENERATE_SYNTHETIC_DATA's pure parts (python/src/dbms_cloud_ai/synthetic_data/) and the
data-access switch without a call context, no server."""

from __future__ import annotations

import pytest
from dbms_cloud_ai import data_access
from dbms_cloud_ai.errors import InvalidJson, InvalidParameter, NullValue
from dbms_cloud_ai.synthetic_data import params, prompt
from dbms_cloud_ai.synthetic_data.tables import Column, Table, _variants


class _Rows(list):
    def nrows(self):
        return len(self)


class FakePlpy:
    """Answers the switch's query with ``on``; counts the queries."""

    def __init__(self, on):
        self.on, self.executed = on, 0

    def prepare(self, sql, types=()):
        return sql

    def execute(self, plan, args=()):
        self.executed += 1
        return _Rows([{"on": self.on}])


class Ctx:
    def __init__(self, settings):
        self.settings = settings


def test_data_access_without_a_context_is_read_or_taken_as_off():
    assert data_access.enabled(None) is False                  # nothing to read it with: off
    for on in (True, False):
        plpy = FakePlpy(on)
        assert data_access.enabled(None, plpy) is on and plpy.executed == 1
    assert data_access.enabled(Ctx({}), FakePlpy(False)) is False
    assert data_access.enabled(Ctx({"data_access": True})) is True
    assert data_access.enabled(Ctx({"data_access": False}), FakePlpy(True)) is False


def test_params_defaults_and_values():
    assert params.options(None) == params.Options(0, False, "HIGH", False)
    o = params.options('{"Sample_Rows": "3", "table_statistics": "TRUE", "priority": "low", '
                       '"comments": true}')
    assert o == params.Options(3, True, "LOW", True) and o.batch_rows == 5
    assert params.options('{"priority": null}').priority == "HIGH"


@pytest.mark.parametrize("raw,error,words", [
    ('{"priority": "URGENT"}', InvalidParameter, "Invalid value for priority"),
    ('{"priority": 1}', InvalidParameter, "Invalid value for priority"),
    ('{"sample_rows": -1}', InvalidParameter, "cannot be smaller than 0"),
    ('{"sample_rows": 101}', InvalidParameter, "too large"),
    ('{"sample_rows": true}', InvalidParameter, "integer"),
    ('{"table_statistics": "yes"}', InvalidParameter, "true or false"),
    ('{"seed": 1}', InvalidParameter, "'seed'"),
    ('[1]', InvalidParameter, "JSON object"),
    ('{', InvalidJson, "not valid JSON"),
])
def test_params_errors(raw, error, words):
    with pytest.raises(error) as e:
        params.options(raw)
    assert words in e.value.message
    assert "generate_synthetic_data" in (e.value.hint or "")


def test_targets():
    assert params.single("T", None, "4", " ") == [params.Target(None, "T", 4, None)]
    with pytest.raises(NullValue):
        params.single("T", "S", None, None)
    with pytest.raises(InvalidParameter, match="cannot be smaller than 0"):
        params.single("T", "S", -1, None)
    listed = params.object_list('[{"OWNER": "sh", "name": "t", "record_count": 2.0, '
                                '"user_prompt": "x"}]')
    assert listed == [params.Target("sh", "t", 2, "x")]


def test_names_as_postgresql_resolves_them():
    assert _variants("customers") == ["customers"]
    assert _variants(" CUSTOMERS ") == ["CUSTOMERS", "customers"]
    assert _variants('"Mixed"') == ["Mixed"]


def table(*names):
    cols = [Column(n, f'"{n}"', "text", "text", False, False, None, True) for n in names]
    return Table(params.Target("s", "t", 3), 1, "s", "t", "s.t", None, cols)


def test_answers_become_rows_of_the_tables_columns_only():
    assert prompt.rows_of('```json\n[{"a": 1}, {"a": 2}, {"a": 3}]\n```', 2) == [{"a": 1}, {"a": 2}]
    assert prompt.rows_of('{"rows": [{"a": 1}]}', 5) == [{"a": 1}]
    assert prompt.rows_of("INSERT INTO t VALUES (1)", 5) is None
    assert prompt.rows_of("[" * 100_000 + "]" * 100_000, 5) == []      # nesting: not JSON here
    assert prompt.rows_of('[{"a": 1}, {"a": 2}, {"a": "cut off', 5) == [{"a": 1}, {"a": 2}]
    assert prompt.rows_of('[{"a": 1}] and then [{"b": 2}]', 5) == [{"a": 1}]
    assert prompt.rows_of('[{"a": 1} {"a": 2} garbage', 5) == [{"a": 1}, {"a": 2}]
    t = table("a", "B", "c")
    row = {"a": "x'); drop table t; --", "b": True, "C": {"k": [1]}, "other.table": 1, "d": 2}
    assert prompt.values(t, row) == ["x'); drop table t; --", "true", '{"k": [1]}']
    assert prompt.values(t, {"A": 1, "a": 2}) == ["2", None, None]       # exact name first
    assert prompt.values(table("x"), {"X": 1, "x ": 2}) == ["1"]
    assert prompt.values(table("x"), {}) == [None]
    for bad in ("text", [1], {"x": "nul\x00"}):
        with pytest.raises(prompt.Unusable):
            prompt.values(table("x"), bad)
