"""Modules imported on first use.

A session's first call pays for every module its functions import (PL/Python
starts a new interpreter per backend).  A session that only chats must not
load NL2SQL (sqlglot, pglast), feedback, the text actions or the memory job
runner: this keeps their import out of its first call (bench/README.md, cold
start).

Each lazy module has an ``if TYPE_CHECKING:`` twin that imports it the ordinary
way, under the same name, so that editors, type checkers and the structure
tests see the dependency (tests/unit/test_structure.py checks the twins)."""

from __future__ import annotations

import importlib


class LazyModule:
    """``LazyModule("nl2sql.actions").runsql`` imports dbms_cloud_ai.nl2sql.actions when first used;
    ``LazyModule("ctypes", package=None)`` a module outside the package."""

    def __init__(self, name: str, package: str | None = __package__):
        self._name = f"{package}.{name}" if package else name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)


def lazy_function(module, name: str):
    """Function ``name`` of ``module`` (a LazyModule), looked up when first called:
    a table of handlers can name it without importing its module."""
    def call(*args, **kwargs):
        return getattr(module, name)(*args, **kwargs)
    call.__qualname__ = call.__name__ = name
    return call
