"""Where the repository is, for tests that read its files: one constant, so that a
test module may live at any depth of tests/ without counting its parents."""

from __future__ import annotations

import importlib
import importlib.util
import pathlib
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent


def bench_module(name: str) -> types.ModuleType:
    """bench/<name>.py as the module bench.<name>: the benchmarks are a package run
    from the root (python -m bench.x), imported here without the root on sys.path."""
    if "bench" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "bench", ROOT / "bench" / "__init__.py", submodule_search_locations=[str(ROOT / "bench")])
        package = importlib.util.module_from_spec(spec)
        sys.modules["bench"] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"bench.{name}")
