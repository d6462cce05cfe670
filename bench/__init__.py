"""The benchmarks and evaluations: run each from the repository's root as a
module, ``python -m bench.bench_generate`` (``make bench`` runs them all).

What they share is in benchlib.py.  They import the fake LLM (tools/fake_llm.py)
and, for in-process figures, the package itself (python/src): both are put on
the path here, once, before any benchmark module runs.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
for _path in (ROOT / "tools", ROOT / "python" / "src"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
