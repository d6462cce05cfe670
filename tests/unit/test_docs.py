"""The documentation: README.md stays a front door, and its links and the docs' links resolve."""

from __future__ import annotations

import pathlib
import re

import pytest
from paths import ROOT

README_MAX_LINES = 300
DOCS = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "bench" / "README.md",
               *(ROOT / "docs").rglob("*.md")])

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"(`+).*?\1")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def _prose(text: str):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        yield number, line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped,
    each space a '-'."""
    text = CODE_SPAN.sub(lambda m: m.group(0).strip("`"), heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)      # a link's text only
    text = text.strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in "-_ ")
    return text.replace(" ", "-")


def anchors(path: pathlib.Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in _prose(path.read_text()):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: pathlib.Path):
    for number, line in _prose(path.read_text()):
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            yield number, target


def test_slug_follows_github():
    assert slug("Retries: request_id") == "retries-request_id"
    assert slug("Long calls: generate_detached") == "long-calls-generate_detached"
    assert slug("H. Hostile users (issue 14)") == "h-hostile-users-issue-14"
    assert slug("`dbms_cloud`: credentials") == "dbms_cloud-credentials"
    assert slug("Figures: `generate()` against the baselines") == "figures-generate-against-the-baselines"


def test_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines; the reference belongs in docs/reference/")


def test_the_reference_has_one_file_per_topic():
    reference = ROOT / "docs" / "reference"
    for name in ("README", "credentials", "profiles", "generate", "conversations", "memory",
                 "feedback", "text-actions", "accounting", "views", "providers", "detached",
                 "errors", "installing"):
        assert (reference / f"{name}.md").is_file(), name


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    if not path.exists():
        pytest.skip(f"{path.name} does not exist")
    broken = []
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):        # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            broken.append(f"line {number}: {target}: no such file")
            continue
        if anchor and dest.is_file() and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"line {number}: {target}: no heading with that anchor")
    assert not broken, f"{path.relative_to(ROOT)}:\n" + "\n".join(broken)
