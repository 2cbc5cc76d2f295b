"""The README and docs/ (the decisions' pages and their cross-references included) link only what a clone of the
repository has: a relative link or a path that leaves the repository is dead in a clone
(docs/decisions/0061-links-readme-docs.md)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# A markdown link's target, or a path in backticks that climbs out of its folder.
LINK = re.compile(r"\]\(([^)\s]+)\)")
CLIMBING_PATH = re.compile(r"`(\.\./[^`\s]*)`")


def _targets(page):
    text = page.read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target) and not target.startswith("#"):
            yield target.split("#", 1)[0]
    yield from CLIMBING_PATH.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_link_and_path_stays_inside_the_repository_and_exists(page):
    dead = []
    for target in _targets(page):
        resolved = (page.parent / target).resolve()
        if ROOT not in resolved.parents or not resolved.exists():
            dead.append(target)
    assert dead == [], f"{page.relative_to(ROOT)} links outside the repository or to nothing: {dead}"
