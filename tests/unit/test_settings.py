"""The settings table (settings.py) against docs/reference/settings.md, and how values parse."""

from __future__ import annotations

import pathlib
import re

import pytest
from dbms_cloud_ai import settings
from dbms_cloud_ai.errors import InvalidParameter
from dbms_cloud_ai.settings import SETTINGS
from paths import ROOT

DOC = ROOT / "docs" / "reference" / "settings.md"


def test_the_documented_table_is_the_codes():
    rows = {m.group(1): (m.group(2), m.group(3), m.group(4)) for m in re.finditer(
        r"^\| `(dbms_cloud_ai\.[a-z_]+)` \| (\w+) \| ([^|]+) \| ([^|]+) \| .+ \|$",
        DOC.read_text(), re.M)}
    assert rows == {s.name: (s.kind, s.range or "–", s.default_text) for s in SETTINGS.values()}


def test_every_setting_the_package_reads_is_in_the_table():
    src = pathlib.Path(settings.__file__).parent
    read = set()
    for p in src.rglob("*.py"):
        read |= set(re.findall(r"current_setting\('(dbms_cloud_ai\.[a-z_]+)'", p.read_text()))
        read |= set(re.findall(r'_GUC = "(dbms_cloud_ai\.[a-z_]+)"', p.read_text()))
    assert read and read <= set(SETTINGS), read - set(SETTINGS)


@pytest.mark.parametrize("name,raw,expected", [
    ("dbms_cloud_ai.http_timeout", None, 120.0),
    ("dbms_cloud_ai.http_timeout", "", 120.0),
    ("dbms_cloud_ai.http_timeout", "30", 30.0),
    ("dbms_cloud_ai.http_timeout", "1500ms", 1.5),
    ("dbms_cloud_ai.http_timeout", " 2 min ", 120.0),
    ("dbms_cloud_ai.max_statement_timeout", "90000", 90.0),
    ("dbms_cloud_ai.max_statement_timeout", "2d", 172800.0),
    ("dbms_cloud_ai.http_max_attempts", "10", 10),
    ("dbms_cloud_ai.max_rows", None, 1000),
    ("dbms_cloud_ai.schema_context_tokens", "100", 100),
    ("dbms_cloud_ai.profile_name", "P", "P"),
])
def test_values(name, raw, expected):
    assert settings.value(name, raw) == expected


@pytest.mark.parametrize("name,raw", [
    ("dbms_cloud_ai.http_timeout", "2h"),
    ("dbms_cloud_ai.http_timeout", "0"),
    ("dbms_cloud_ai.http_timeout", "soon"),
    ("dbms_cloud_ai.http_timeout", "1.2.3s"),
    ("dbms_cloud_ai.http_timeout", "5 fortnights"),
    ("dbms_cloud_ai.http_max_attempts", "0"),
    ("dbms_cloud_ai.http_max_attempts", "11"),
    ("dbms_cloud_ai.http_max_attempts", "2.5"),
    ("dbms_cloud_ai.max_rows", "-1"),
    ("dbms_cloud_ai.max_text_calls", "lots"),
    ("dbms_cloud_ai.schema_context_tokens", "99"),
    ("dbms_cloud_ai.max_statement_timeout", "0"),
])
def test_out_of_range_names_the_setting_and_how_to_set_it(name, raw):
    with pytest.raises(InvalidParameter) as e:
        settings.value(name, raw)
    assert e.value.sqlstate == "22023"
    assert name in e.value.message and e.value.hint.startswith(f"SET {name} = ")
