"""pytest plugin of `make test-oracle-sdk` (``-p sdk_conformance``): what Oracle's suite says of
the extension, per test file, and the gate.

* It records one outcome per test: ``passed``, ``failed`` (the test's body failed), ``error``
  (a fixture failed, in setup or teardown, or the file did not import) or ``skipped``; a test
  the budget left out is ``not run``.
* It prints a markdown table (a row per test file, a total), writes it to ``--sdk-table``, and
  lists the test files of ``--sdk-not-run`` folders (tests/a2a: Oracle's managed A2A server)
  with their count of test functions.
* The gate (the run's exit status): a failure or error not in ``--sdk-expected`` fails the
  run; a test in that list that now passes is printed (trim the list); fewer than
  ``--sdk-min-passed`` passed tests fail the run, and so do fewer than N passed under a
  folder of ``--sdk-min-passed-in FOLDER=N`` (tests/agents: issue 33's own gate).
* ``--sdk-failures`` gets a line per failure or error of the run, ``<node id> # <what was
  raised>``: the material to classify new entries of the expected list by.
* ``--sdk-record`` rewrites the expected list from this run (a test keeps its reason; a new one
  takes the reason of the first ``--sdk-reasons`` rule whose pattern is found in what it raised,
  else "unclassified") and the table and failure list of ``--sdk-doc``.

The expected list has a line per test: ``<node id> # <reason>``; the rules, a line per rule:
``<regular expression> # <reason>``.
"""

from __future__ import annotations

import ast
import collections
import datetime
import pathlib
import re
import time

import pytest

OUTCOMES = ("passed", "failed", "error", "skipped", "not run")
BAD = ("failed", "error")
UNCLASSIFIED = "unclassified"
BEGIN, END = "<!-- conformance:begin -->", "<!-- conformance:end -->"
HEADER = """\
# Oracle select-ai 1.5.0 tests expected to fail under `make test-oracle-sdk`, one per line:
# <node id> # <reason>.  `make test-oracle-sdk ORACLE_SDK_RECORD=1` rewrites this file from a
# run, keeping the reasons and marking new entries "unclassified"; docs/oracle-sdk-conformance.md.
"""


def pytest_addoption(parser):
    g = parser.getgroup("sdk_conformance", "Oracle SDK conformance (make test-oracle-sdk)")
    g.addoption("--sdk-expected", help="the expected failures: '<node id> # <reason>' per line")
    g.addoption("--sdk-min-passed", type=int, default=0, help="fail when fewer tests pass")
    g.addoption("--sdk-min-passed-in", action="append", default=[], metavar="FOLDER=N",
                help="fail when fewer than N tests under FOLDER pass (tests/agents=150: issue 33)")
    g.addoption("--sdk-budget", type=float, default=0, help="stop starting tests after this many seconds")
    g.addoption("--sdk-table", help="write the markdown table here")
    g.addoption("--sdk-not-run", action="append", default=[],
                help="a folder left out of the run, listed with its test functions")
    g.addoption("--sdk-record", action="store_true",
                help="rewrite --sdk-expected and the table of --sdk-doc from this run")
    g.addoption("--sdk-doc", help="the markdown document whose conformance section --sdk-record rewrites")
    g.addoption("--sdk-reasons", help="rules for new entries: '<regular expression> # <reason>' per line")
    g.addoption("--sdk-failures", help="write '<node id> # <what was raised>' per failure here")


def read_expected(path: pathlib.Path) -> dict[str, str]:
    expected = {}
    if not path.exists():
        return expected
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        node, _, reason = line.partition(" # ")
        expected[node.strip()] = reason.strip() or UNCLASSIFIED
    return expected


def read_rules(path: pathlib.Path) -> list[tuple[re.Pattern, str]]:
    return [(re.compile(pattern), reason) for pattern, reason in read_expected(path).items()]


def write_expected(path: pathlib.Path, expected: dict[str, str]) -> None:
    lines = [f"{node} # {reason}" for node, reason in sorted(expected.items())]
    path.write_text(HEADER + "".join(line + "\n" for line in lines))


def count_test_functions(path: pathlib.Path) -> int:
    tree = ast.parse(path.read_text())
    return sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")
               for n in ast.walk(tree))


def what_was_raised(report) -> str:
    """The first line of the failure's message (the exception and its text), else its last line."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1:]
    text = text if isinstance(text, str) else " ".join(text)
    return " ".join(text.split())[:300]


class Conformance:
    def __init__(self, config):
        self.config = config
        self.outcome: dict[str, str] = {}
        self.raised: dict[str, str] = {}
        self.started = time.monotonic()
        self.session = None
        self.verdict: list[str] = []
        self.fixed: list[str] = []

    # --- recording
    def pytest_sessionstart(self, session):
        self.session = session

    def pytest_collectreport(self, report):
        if report.failed:                      # a file that does not import: one error
            self.outcome[report.nodeid] = "error"
            self.raised[report.nodeid] = what_was_raised(report)

    def pytest_collection_modifyitems(self, items):
        for item in items:
            self.outcome.setdefault(item.nodeid, "not run")

    def pytest_runtest_logreport(self, report):
        now = self.outcome.get(report.nodeid, "not run")
        if report.when == "setup":
            now = "error" if report.failed else "skipped" if report.skipped else now
        elif report.when == "call":
            now = "failed" if report.failed else "skipped" if report.skipped else "passed"
        elif report.failed and now != "failed":   # teardown
            now = "error"
        self.outcome[report.nodeid] = now
        if report.failed:
            self.raised.setdefault(report.nodeid, what_was_raised(report))
        budget = self.config.getoption("sdk_budget")
        if (report.when == "teardown" and budget and self.session is not None
                and time.monotonic() - self.started > budget):
            self.session.shouldstop = f"the budget of {budget:.0f} s is spent"

    # --- the table
    def by_file(self):
        files = collections.defaultdict(collections.Counter)
        for node, outcome in self.outcome.items():
            files[node.split("::")[0]][outcome] += 1
        return dict(sorted(files.items()))

    def not_run_files(self):
        root = self.config.rootpath
        for folder in self.config.getoption("sdk_not_run"):
            for path in sorted((root / folder).rglob("test_*.py")):
                yield str(path.relative_to(root)), count_test_functions(path)

    def table(self) -> str:
        head = "| test file | " + " | ".join(OUTCOMES) + " |"
        rows = [head, "|---" * (len(OUTCOMES) + 1) + "|"]
        total = collections.Counter()
        for file, counts in self.by_file().items():
            total.update(counts)
            rows.append(f"| {file} | " + " | ".join(str(counts[o]) for o in OUTCOMES) + " |")
        rows.append("| **total** | " + " | ".join(f"**{total[o]}**" for o in OUTCOMES) + " |")
        left = list(self.not_run_files())
        if left:
            rows += ["", "Not run (Oracle's managed A2A server, not emulated):", "",
                     "| test file | test functions |", "|---|---|"]
            rows += [f"| {file} | {n} |" for file, n in left]
            rows.append(f"| **total** | **{sum(n for _, n in left)}** |")
        return "\n".join(rows) + "\n"

    # --- the gate
    def pytest_sessionfinish(self, session, exitstatus):
        bad = {n for n, o in self.outcome.items() if o in BAD}
        passed = sum(o == "passed" for o in self.outcome.values())
        path = self.config.getoption("sdk_expected")
        expected = read_expected(pathlib.Path(path)) if path else {}
        if self.config.getoption("sdk_record") and path:
            rules = read_rules(pathlib.Path(self.config.getoption("sdk_reasons") or "/nonexistent"))
            expected = {n: expected.get(n) or self.reason_by_rule(rules, n) for n in bad}
            write_expected(pathlib.Path(path), expected)
            self.verdict.append(f"rewrote {path}: {len(expected)} expected failures")
            doc = self.config.getoption("sdk_doc")
            if doc:
                self.record_doc(pathlib.Path(doc), expected)
                self.verdict.append(f"rewrote the table of {doc}")
        unexpected = sorted(bad - expected.keys())
        self.fixed = sorted(n for n, o in self.outcome.items() if o == "passed" and n in expected)
        minimum = self.config.getoption("sdk_min_passed")
        ok = True
        if unexpected:
            ok = False
            self.verdict.append(f"{len(unexpected)} failed or errored and are not in the expected list:")
            self.verdict += [f"    {n}" for n in unexpected]
        if passed < minimum:
            ok = False
            self.verdict.append(f"{passed} passed, fewer than the {minimum} required")
        for folder, least in self.folder_minimums():
            in_folder = sum(o == "passed" for n, o in self.outcome.items()
                            if n.startswith(folder + "/"))
            self.verdict.append(f"{folder}: {in_folder} passed (at least {least} required)")
            if in_folder < least:
                ok = False
        not_run = sum(o == "not run" for o in self.outcome.values())
        if not_run:
            self.verdict.append(f"{not_run} tests did not run (the budget, or -x)")
        self.verdict.append(f"conformance: {'PASS' if ok else 'FAIL'} ({passed} passed, "
                            f"{len(bad)} failed or errored, {len(bad) - len(unexpected)} of them expected)")
        if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED,
                          pytest.ExitCode.NO_TESTS_COLLECTED, pytest.ExitCode.INTERRUPTED):
            session.exitstatus = pytest.ExitCode.OK if ok else pytest.ExitCode.TESTS_FAILED
        table = self.config.getoption("sdk_table")
        if table:
            pathlib.Path(table).write_text(self.table())
        failures = self.config.getoption("sdk_failures")
        if failures:
            pathlib.Path(failures).write_text("".join(
                f"{n} # {self.raised.get(n, '')}\n" for n in sorted(bad)))

    def folder_minimums(self):
        for spec in self.config.getoption("sdk_min_passed_in"):
            folder, _, least = spec.partition("=")
            yield folder.rstrip("/"), int(least)

    def reason_by_rule(self, rules, node: str) -> str:
        raised = self.raised.get(node, "")
        return next((reason for pattern, reason in rules if pattern.search(raised)), UNCLASSIFIED)

    def record_doc(self, doc: pathlib.Path, expected: dict[str, str]) -> None:
        """The conformance section of the doc: date, command, table, failures by reason."""
        by_reason = collections.defaultdict(lambda: collections.defaultdict(list))
        for node, reason in sorted(expected.items()):
            file, _, name = node.partition("::")
            by_reason[reason][file].append(name or "(the file)")
        parts = [f"Run on {datetime.date.today().isoformat()} with `make test-oracle-sdk`.", "",
                 self.table(), "### Failing tests by reason", ""]
        for reason, files in sorted(by_reason.items(), key=lambda kv: -sum(map(len, kv[1].values()))):
            parts.append(f"- **{reason}** ({sum(map(len, files.values()))}):")
            parts += [f"  - `{file}`: " + ", ".join(f"`{n}`" for n in names)
                      for file, names in files.items()]
        text = doc.read_text()
        section = f"{BEGIN}\n" + "\n".join(parts) + f"\n{END}"
        doc.write_text(re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: section, text,
                              flags=re.S))

    def pytest_terminal_summary(self, terminalreporter):
        tr = terminalreporter
        tr.section("Oracle select-ai 1.5.0 suite, per test file")
        tr.write(self.table())
        if self.fixed:
            tr.write_line(f"{len(self.fixed)} tests in the expected list now pass (trim the list):")
            for n in self.fixed:
                tr.write_line(f"    {n}")
        tr.write_line(f"took {time.monotonic() - self.started:.0f} s")
        for line in self.verdict:
            tr.write_line(line)


def pytest_configure(config):
    config.pluginmanager.register(Conformance(config), "sdk_conformance_state")
