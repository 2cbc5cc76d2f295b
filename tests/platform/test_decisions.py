"""The decisions, one a page under docs/decisions/ (docs/decisions/index.md): each has its context, the decision,
its consequences and a status; a decision a later one changed says by which, with a link, and the later one says
what it changed; the index lists every page once, with the same status. Code, tests and docs name a decision by
its page, never by the single file the decisions once were."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DECISIONS = ROOT / "docs" / "decisions"
PAGES = sorted(DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md"))
STATUS = re.compile(r"^Status: (.*?)\n\n", re.S | re.M)
# In a status: "amended by [0074](0074-....md)", "amends [0073](...)", "superseded by [0160](...)", "supersedes".
CHANGED_BY = re.compile(r"(?:amended|superseded) by(.*?)(?:;|$)", re.S)
CHANGES = re.compile(r"(?:amends|supersedes)(.*?)(?:;|$)", re.S)
NUMBER_LINK = re.compile(r"\[(\d{4})\]\((\d{4})-[a-z0-9-]+\.md\)")


def _status(page):
    match = STATUS.search(page.read_text(encoding="utf-8"))
    assert match, f"{page.name} has no 'Status:' line"
    return match.group(1)


def _numbers(pattern, status):
    return {number for part in pattern.findall(status) for number, _ in NUMBER_LINK.findall(part)}


def _index_line(page):
    lines = [
        line
        for line in (DECISIONS / "index.md").read_text(encoding="utf-8").splitlines()
        if line.startswith(f"- [{page.name[:4]}. ") and f"]({page.name})" in line
    ]
    assert len(lines) == 1, f"the index lists {page.name} {len(lines)} times"
    return lines[0]


def test_the_decisions_are_one_a_page():
    assert len(PAGES) > 100
    assert len({page.name[:4] for page in PAGES}) == len(PAGES), "two pages share a number"


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_a_decision_has_its_context_decision_consequences_and_status(page):
    text = page.read_text(encoding="utf-8")
    assert text.startswith(f"# {page.name[:4]}. ")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[:3] == ["Context", "Decision", "Consequences"], f"{page.name}: {headings}"
    status = _status(page)
    assert re.match(r"(accepted|superseded by \[\d{4}\])", status), f"{page.name}: {status!r}"
    if "superseded by" in status or "amended by" in status:
        assert _numbers(CHANGED_BY, status), f"{page.name} does not link the decision that changed it: {status!r}"


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_a_changed_decision_and_the_one_that_changed_it_name_each_other(page):
    number = page.name[:4]
    by_number = {other.name[:4]: other for other in PAGES}
    for later in _numbers(CHANGED_BY, _status(page)):
        assert number in _numbers(CHANGES, _status(by_number[later])), f"{later} does not say it changed {number}"
    for earlier in _numbers(CHANGES, _status(page)):
        assert number in _numbers(CHANGED_BY, _status(by_number[earlier])), f"{earlier} does not name {number}"


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_the_index_lists_every_decision_once_with_its_status(page):
    line = _index_line(page)
    status = _status(page)
    listed = line.split(f"]({page.name}):", 1)[1].strip()
    assert listed.split()[0].strip(",;") == status.split()[0].strip(",;"), f"index: {listed!r}, page: {status!r}"
    assert {n for n, _ in NUMBER_LINK.findall(listed)} == _numbers(CHANGED_BY, status), (
        f"the index's line for {page.name} and its status name different later decisions: {listed!r} / {status!r}"
    )


def test_code_tests_and_docs_name_a_decision_by_its_page():
    """`docs/decisions.md` only says where the decisions went; a reference to it names no decision. A decision
    named in prose (decision "Title") is a link to its page."""
    stale = []
    for folder in ("clinicrecords", "tests", "bench", "scripts", "docs", "alembic", "deploy"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in {".py", ".md", ".ini", ".yml", ".yaml", ".sh", ".conf", ""} or not path.is_file():
                continue
            if path.name in {"decisions.md", "performance-history.md", Path(__file__).name}:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            prose = r"|\bdecisions? \"[^\"\n]+\"" if path.suffix == ".md" else ""
            for match in re.finditer(r"docs/decisions\.md" + prose, text):
                stale.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert stale == []
