"""The tenant-scale benchmark keeps the clinics it built (`python -m bench.tenants`, bench/tenant_cluster.py): a
second run reuses them through the manifest and creates only the missing ones, its stored key still answers,
`--fresh` and a manifest that no longer matches build anew, a cluster built before the migrations moved is upgraded
first, a build cut short is resumed, and the one-column step leaves every schema at the real head. A few clinics
in a database of their own."""

import json
import os
import uuid

import pytest
import webtest
from alembic.script import ScriptDirectory
from sqlalchemy import select
from sqlalchemy.orm import Session

from bench.tenant_cluster import (create_clinics, heads, left_off_head, one_column_scripts,
                                  prepare, read_manifest, write_manifest)
from bench.tenants import DATABASE as KEPT_DATABASE
from bench.tenants import MANIFEST, SMOKE_DATABASE, kept_cluster, migrate_one_column
from clinicrecords.clinics.models import Clinic
from clinicrecords.clinics.services import CLINIC_SCHEMAS, create_clinic
from clinicrecords.db import migrations
from tests.common import task_queue
from tests.conftest import TESTING_INI

# One per test process: pytest-xdist may run this module's tests in two processes at once.
DATABASE = f"clinicrecords_test_tenant_keep_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


@pytest.fixture(scope="module")
def settings():
    from pyramid.paster import get_appsettings

    if os.environ.get("DATABASE_URL"):
        pytest.fail("this test needs the embedded PostgreSQL (it makes a database of its own)")
    return {**get_appsettings(TESTING_INI, "main"), "database.name": DATABASE, "huey.backend": "memory",
            "huey.consumer_in_process": "false"}


@pytest.fixture
def run(settings, tmp_path):
    """`prepare` as bench.tenants' main calls it, on this module's database and a manifest of the test's own."""
    apps = []
    manifest_path = tmp_path / "tenants-manifest.json"

    def prepared(count, fresh=False):
        app, manifest, report = prepare(settings, manifest_path, count, fresh=fresh, workers=1)
        apps.append(app)
        return app, manifest, report

    prepared.manifest_path = manifest_path
    with task_queue.kept():
        yield prepared
    for app in apps:
        app.registry["db.engine"].dispose()


def clinic_ids(manifest):
    return [clinic["id"] for clinic in manifest["clinics"]]


def test_a_second_run_reuses_the_kept_clinics_and_creates_only_the_missing_ones(run):
    _, first, report = run(2, fresh=True)
    assert report["built"] == {"reused": 0, "created": 2}
    assert report["creation"]["count"] == 2 and report["creation"]["measured_this_run"] is True

    app, more, report = run(3)

    assert report["built"] == {"reused": 2, "created": 1}
    assert report["creation"]["count"] == 1 and report["creation"]["measured_this_run"] is True
    assert report["upgrade"]["schemas_migrated"] == 0 and report["clinics_in_database"] == 3
    written = read_manifest(run.manifest_path)
    assert clinic_ids(written)[:2] == clinic_ids(first) and len(clinic_ids(written)) == 3
    assert written["database"] == DATABASE and written["heads"] == heads()
    assert written["creation"]["count"] == 3 and len(written["creation_ms"]) == 3
    # The key's secret is known only to the manifest: it still opens a clinic built by the first run.
    client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    answer = client.get(written["clinics"][0]["target"], headers={"Authorization": f"Bearer {written['key']}"})
    assert answer.status_int == 200 and answer.json["data"]["substance"]["text"] == "Peanut"


def test_a_run_asking_for_no_more_clinics_than_kept_creates_none_and_quotes_the_stored_creation(run):
    run(3, fresh=True)

    _, manifest, report = run(2)

    assert report["built"] == {"reused": 2, "created": 0}
    assert report["creation"] == {**read_manifest(run.manifest_path)["creation"], "measured_this_run": False}
    assert report["creation"]["count"] == 3 and report["clinics_in_database"] == 3


def test_fresh_drops_the_kept_clinics_and_builds_anew(run):
    _, before, _ = run(2, fresh=True)

    app, after, report = run(2, fresh=True)

    assert report["built"] == {"reused": 0, "created": 2}
    assert not set(clinic_ids(before)) & set(clinic_ids(after))
    assert migrations.clinics_behind(app.registry["db.engine"], CLINIC_SCHEMAS) == []
    assert report["clinics_in_database"] == 2 and clinic_ids(read_manifest(run.manifest_path)) == clinic_ids(after)


def test_a_manifest_that_no_longer_matches_its_database_is_built_anew(run):
    _, manifest, _ = run(2, fresh=True)
    manifest["clinics"][1]["id"] = str(uuid.uuid4())  # a clinic the database does not hold
    write_manifest(run.manifest_path, manifest)

    _, rebuilt, report = run(2)

    assert report["built"] == {"reused": 0, "created": 2}
    assert not set(clinic_ids(manifest)) & set(clinic_ids(rebuilt))


def test_a_build_cut_short_is_resumed_with_the_clinics_it_finished_after_its_last_manifest(run):
    app, manifest, _ = run(2, fresh=True)
    # Killed after one more clinic was built and seeded, and another only created, before the manifest was written.
    finished, _ = next(create_clinics(app.registry, manifest["workspace_id"], 2, 1))
    with Session(app.registry["db.engine"]) as db, db.begin():
        create_clinic(db, "Bench clinic cut short")

    _, kept, report = run(4)

    assert clinic_ids(kept)[:3] == [*clinic_ids(manifest), finished["id"]] and len(clinic_ids(kept)) == 4
    assert report["built"] == {"reused": 3, "created": 1}
    assert report["clinics_unlisted"] == 1 and report["clinics_in_database"] == 5
    assert len(read_manifest(run.manifest_path)["creation_ms"]) == 3  # the resumed one was never timed


def test_a_cluster_built_before_the_migrations_moved_is_upgraded_first_by_the_real_migrate_all(run):
    app, manifest, _ = run(2, fresh=True)
    engine = app.registry["db.engine"]
    head = migrations.head("tenant")
    before = ScriptDirectory(str(migrations.ALEMBIC_DIR / "tenant")).get_revision(head).down_revision
    with engine.connect() as connection:  # every schema, the workspace's sandbox too
        every = connection.scalars(select(Clinic.id)).all()
    for clinic_id in every:  # as if built before the latest tenant revision
        migrations.downgrade_clinic(engine.url.render_as_string(hide_password=False), CLINIC_SCHEMAS, clinic_id,
                                    before, str(migrations.ALEMBIC_DIR / "tenant"))
    write_manifest(run.manifest_path, {**manifest, "heads": {**manifest["heads"], "tenant": before}})
    assert left_off_head(engine)["behind_head"] == 3

    _, upgraded, report = run(2)

    assert report["upgrade"]["built_at"]["tenant"] == before and report["upgrade"]["now"] == heads()
    assert report["upgrade"]["schemas_migrated"] == 3 and report["upgrade"]["seconds"] > 0
    assert report["built"] == {"reused": 2, "created": 0} and upgraded["heads"] == heads()
    assert left_off_head(engine) == {"behind_head": 0, "one_column_left": 0}


def test_the_one_column_step_leaves_every_kept_schema_at_the_real_head(run):
    app, _, _ = run(2, fresh=True)
    engine = app.registry["db.engine"]

    migration = migrate_one_column(engine, workers=1)

    # Every schema of the database: the two clinics and the workspace's sandbox.
    assert migration["schemas_migrated"] == 3 and migration["behind_after"] == 0
    assert migration["schemas_downgraded"] == 3 and migration["downgrade_seconds"] > 0
    assert migration["after_downgrade"] == {"behind_head": 0, "one_column_left": 0}
    _, _, report = run(2)
    assert report["built"] == {"reused": 2, "created": 0} and report["upgrade"]["schemas_migrated"] == 0


def test_a_run_cut_short_after_the_one_column_revision_is_mended_before_the_next(run):
    app, _, _ = run(2, fresh=True)
    engine = app.registry["db.engine"]
    with one_column_scripts() as location:  # the upgrade without its downgrade, as a killed run leaves it
        assert migrations.migrate_all(engine, CLINIC_SCHEMAS, workers=1, script_location=location) == 3
    assert left_off_head(engine) == {"behind_head": 3, "one_column_left": 3}  # with the workspace's sandbox

    _, _, report = run(2)

    assert report["upgrade"]["one_column_mended"] == 3 and report["built"] == {"reused": 2, "created": 0}
    assert left_off_head(engine) == {"behind_head": 0, "one_column_left": 0}


def test_the_manifest_is_json_with_what_only_the_build_knew(run):
    run(2, fresh=True)

    manifest = json.loads(run.manifest_path.read_text())

    assert {"database", "workspace_id", "key", "clinics", "creation", "creation_ms", "heads"} <= set(manifest)
    assert all(clinic["target"].startswith(f"/v1/clinics/{clinic['id']}/allergies/") for clinic in manifest["clinics"])
    assert set(manifest["heads"]) == {"tenant", "control"}


def test_clinics_built_before_the_manifest_are_adopted_with_a_new_key(run):
    _, built, _ = run(2, fresh=True)
    run.manifest_path.unlink()  # as a cluster built before manifests were written is found

    app, adopted, report = run(2)

    assert report["built"] == {"reused": 2, "created": 0}
    assert report["creation"] == {"count": 0, "measured_this_run": False}  # its creation was never timed
    assert clinic_ids(adopted) == clinic_ids(built) and adopted["key"] != built["key"]
    assert [clinic["target"] for clinic in adopted["clinics"]] == [clinic["target"] for clinic in built["clinics"]]
    client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    client.get(adopted["clinics"][1]["target"], headers={"Authorization": f"Bearer {adopted['key']}"}, status=200)
    assert read_manifest(run.manifest_path)["adopted"] is True


def test_each_kept_cluster_has_its_own_manifest(tmp_path):
    assert kept_cluster(tmp_path, KEPT_DATABASE) == (KEPT_DATABASE, tmp_path / MANIFEST)
    assert kept_cluster(tmp_path, "other") == ("other", tmp_path / "other-manifest.json")
    assert kept_cluster(tmp_path, "other", smoke=True)[0] == SMOKE_DATABASE
    assert kept_cluster(tmp_path, KEPT_DATABASE, smoke=True)[1] != tmp_path / MANIFEST
