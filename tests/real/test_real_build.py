"""The local model server's build is portable (issue 29): llama.cpp built with -march=native
on a machine with AVX-512 or AMX runs there and dies of SIGILL at the first token on one
without, so a CI machine without AMX would not notice by running it.  This asks the build
itself (scripts/local-model.sh check-build: objdump of its libraries and llama.cpp's list of
compile-time features), so such a build fails the tier on any machine.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from real.real_fixtures import LOCAL_MODEL

pytestmark = pytest.mark.real


def test_the_model_servers_build_holds_nothing_beyond_the_baseline():
    if os.environ.get("LOCAL_MODEL_URL"):
        pytest.skip("LOCAL_MODEL_URL names another server: its build is not this project's")
    if os.environ.get("LOCAL_MODEL_CMAKE_ARGS"):
        pytest.skip("LOCAL_MODEL_CMAKE_ARGS: a build for this machine only, by choice")
    r = subprocess.run([str(LOCAL_MODEL), "check-build"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
