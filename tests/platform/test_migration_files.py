"""A migration file's name starts with its place in its chain, so listing a versions directory reads the chain
in the order Alembic applies it; the revision id follows, unchanged (docs/contributing.md, Data)."""

from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from clinicrecords.db import migrations


@pytest.mark.parametrize("target", ["control", "tenant"])
def test_migration_files_are_named_in_the_order_of_their_chain(target):
    scripts = ScriptDirectory.from_config(migrations.alembic_config(target, None))
    assert len(scripts.get_heads()) == 1, "one line of revisions, no branches"
    chain = list(reversed(list(scripts.walk_revisions())))
    names = [Path(revision.path).name for revision in chain]
    expected = [f"{position:03d}_{revision.revision}" for position, revision in enumerate(chain, 1)]
    assert [name[:len(prefix)] for name, prefix in zip(names, expected)] == expected
    listed = sorted(path.name for path in (migrations.ALEMBIC_DIR / target / "versions").glob("*.py"))
    assert listed == names
