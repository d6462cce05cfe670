"""Where the repository is, for tests that read its files: one constant, so that a
test module may live at any depth of tests/ without counting its parents."""

from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
