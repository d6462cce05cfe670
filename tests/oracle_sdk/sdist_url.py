"""The download URL of one file of a PyPI project, from its JSON simple index (PEP 691).

    python sdist_url.py https://pypi.org/simple/select-ai/ select_ai-1.5.0.tar.gz

scripts/oracle-sdk-tests.sh checks the file's sha256 itself, against its own pin."""

from __future__ import annotations

import json
import sys
import urllib.request


def main(index_url: str, filename: str) -> int:
    req = urllib.request.Request(index_url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        files = json.load(resp)["files"]
    for f in files:
        if f["filename"] == filename:
            print(f["url"])
            return 0
    print(f"{filename}: not in {index_url}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
