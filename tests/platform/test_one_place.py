"""One concept, one place (decision 0072): the chart kinds are named in review/kinds.py and known from there or from
the kinds registered; named advisory locks are taken through db/locks.py; content is hashed through
api/canonical.py; what a request owes with its COMMIT or apart goes through db/commit_or_apart.py."""

import ast
import pathlib

import clinicrecords
from clinicrecords.review.interfaces import CHART_KINDS

PACKAGE = pathlib.Path(clinicrecords.__file__).parent


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield str(path.relative_to(PACKAGE)), path.read_text()


def _literals_naming_kinds(tree):
    """Lines of the tuples, lists, sets and dicts that name two chart kinds or more."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            named = {inner.value for inner in ast.walk(node)
                     if isinstance(inner, ast.Constant) and inner.value in CHART_KINDS}
            if len(named) >= 2:
                found.append(node.lineno)
    return found


def test_the_chart_kinds_are_listed_once():
    listed = {name: lines for name, source in _modules()
              if (lines := _literals_naming_kinds(ast.parse(source)))}
    assert set(listed) == {"review/kinds.py"}, listed


def test_the_scan_finds_a_list_of_kinds():
    assert _literals_naming_kinds(ast.parse('KINDS = ("allergy", "condition")\nONE = ("allergy",)\n'
                                            'PAIRS = ((I, "referral"), (J, "condition"))')) == [1, 3]


def _calls(source, *names):
    return [name for name in names if name in source]


def test_named_advisory_locks_are_taken_through_one_helper():
    # (The migration runs' own locks are numbered, not named: db/direct.py, db/migrations.py.)
    takers = {name for name, source in _modules() if _calls(source, "hashtextextended")}
    assert takers == {"db/locks.py"}


def test_content_is_hashed_through_one_canonical_text():
    # The patient import's two digests were written with non-ASCII text as is, and its stored ones are still
    # compared ("already imported", a row written before a resume): they keep their text. The served record
    # (listening.py) hashes a database's address, not content, and writes its JSON apart.
    hashers = {name for name, source in _modules() if "sha256(" in source and "json.dumps(" in source}
    assert hashers == {"api/canonical.py", "patients/imports/services.py", "patients/imports/tasks.py",
                       "listening.py"}


def test_what_a_request_owes_goes_with_its_commit_or_apart_through_one_helper():
    senders = {name for name, source in _modules() if _calls(source, "send_with_commit(", "add_after_commit",
                                                                 "addAfterCommitHook")}
    assert senders == {"db/commit_or_apart.py", "db/request_transaction.py", "tasks/__init__.py"}
    outside_the_transaction = {name for name, source in _modules() if 'over="pyramid_tm' in source}
    assert outside_the_transaction == {"db/__init__.py"}
