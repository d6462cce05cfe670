"""The suite's plugins, as psycopg's tests load theirs: the database and its roles
(fix_db.py) and the fake LLM (fix_llm.py).  Modules are found through pytest.ini's
``pythonpath``; docs/development.md describes the layout of tests/.
"""

from __future__ import annotations

import pytest

pytest_plugins = ["fix_db", "fix_llm"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A real-tier test that could not reach its model (LL000): when the server is gone, say
    why (its log, the cause) and stop the tier instead of failing every test after it."""
    report = yield
    if report.failed and call.excinfo is not None and item.get_closest_marker("real"):
        from real.real_fixtures import gone_servers
        why = gone_servers(call.excinfo.value)
        if why:
            report.sections.append(("model server gone", why))
            item.session.shouldstop = "a model server is gone (its section above says why): the real tier stops"
    return report
