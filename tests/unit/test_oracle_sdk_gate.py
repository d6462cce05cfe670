"""make test-oracle-sdk's gate (tests/oracle_sdk/sdk_conformance.py), on a small suite of its
own: an unlisted failure fails the run, a listed one does not, a listed test that passes is
named, too few passes fail, and --sdk-record rewrites the list with the rules' reasons."""

from __future__ import annotations

import subprocess
import sys

from paths import ROOT

SUITE = '''
import pytest

def test_passes():
    pass

def test_fails():
    raise ValueError("ORA-00942: relation v$parameter does not exist")

def test_fixed():
    pass

@pytest.fixture
def broken():
    raise RuntimeError("no fixture today")

def test_errors(broken):
    pass
'''


def run(tmp_path, expected: str, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "tests" / "test_small.py").write_text(SUITE)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "expected.txt").write_text(expected)
    (tmp_path / "reasons.txt").write_text("v\\$parameter # Oracle's instance views\n")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path),
         "-q", "-p", "sdk_conformance", "-p", "no:cacheprovider",
         "--sdk-expected", str(tmp_path / "expected.txt"), "--sdk-reasons", str(tmp_path / "reasons.txt"),
         "--sdk-table", str(tmp_path / "table.md"), *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(ROOT / "tests" / "oracle_sdk"), "PATH": "/usr/bin:/bin"})


LISTED = ("tests/test_small.py::test_fails # Oracle's instance views\n"
          "tests/test_small.py::test_errors # no fixture\n")


def test_a_failure_not_in_the_list_fails_the_run(tmp_path):
    r = run(tmp_path, "tests/test_small.py::test_errors # no fixture\n")
    assert r.returncode == 1, r.stdout
    assert "tests/test_small.py::test_fails" in r.stdout.split("not in the expected list:")[1]


def test_listed_failures_pass_and_a_listed_test_that_passes_is_named(tmp_path):
    r = run(tmp_path, LISTED + "tests/test_small.py::test_fixed # was broken\n", "--sdk-min-passed", "2")
    assert r.returncode == 0, r.stdout
    assert "now pass (trim the list)" in r.stdout and "    tests/test_small.py::test_fixed" in r.stdout
    table = (tmp_path / "table.md").read_text()
    assert "| tests/test_small.py | 2 | 1 | 1 | 0 | 0 |" in table


def test_too_few_passes_fail_the_run(tmp_path):
    r = run(tmp_path, LISTED, "--sdk-min-passed", "3")
    assert r.returncode == 1 and "2 passed, fewer than the 3 required" in r.stdout, r.stdout


def test_record_keeps_reasons_and_classifies_new_entries_by_rule(tmp_path):
    r = run(tmp_path, "tests/test_small.py::test_errors # no fixture\n", "--sdk-record")
    assert r.returncode == 0, r.stdout
    lines = [x for x in (tmp_path / "expected.txt").read_text().splitlines() if not x.startswith("#")]
    assert lines == ["tests/test_small.py::test_errors # no fixture",
                     "tests/test_small.py::test_fails # Oracle's instance views"]
