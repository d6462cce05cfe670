"""Fixtures: the fake LLM (tools/fake_llm.py), one server for the whole run.

Loaded as a plugin by tests/conftest.py.
"""

from __future__ import annotations

import pytest
from fake_llm import FakeLLM


@pytest.fixture(scope="session")
def fake_llm():
    fake = FakeLLM().start()
    yield fake
    fake.stop()


@pytest.fixture
def llm(fake_llm, db):
    """The fake LLM, emptied, and reachable by every role of this test's database."""
    fake_llm.reset()
    db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
    yield fake_llm
    fake_llm.reset()
