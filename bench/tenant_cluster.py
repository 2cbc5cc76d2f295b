"""The clinics `python -m bench.tenants` builds, kept between runs: a 10,000-clinic cluster takes about 45 minutes
to build and is then measured many times.

The manifest (var/bench/tenants-manifest.json) holds what only the build knew: the workspace key's secret (the
database keeps its hash), the clinics in creation order with one allergy path each, the creation timings and the
Alembic heads the cluster was built at. A run reuses the database when the manifest still describes it (the same
database, the clinics it lists and no others but the workspace's sandbox) and builds only the clinics missing to
reach its count.

The one-column step's throwaway revision is downgraded again here, so every schema is back at the real head for
the next run; a run that was cut short between the two is mended before the next run's migrate.
"""

import contextlib
import datetime
import functools
import json
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ONE_COLUMN = "bench_one_column"
REVISION = '''"""bench: one nullable column (throwaway, written by bench.tenants)"""
import sqlalchemy as sa
from alembic import op

revision = "bench_one_column"
down_revision = {head!r}
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("patients", sa.Column("bench_note", sa.Text(), nullable=True))


def downgrade():
    op.drop_column("patients", "bench_note")
'''


# A long build writes its manifest every so many clinics: a build cut short is resumed from there.
CHECKPOINT = 500


def log(message):
    print(message, file=sys.stderr, flush=True)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def creation_summary(timings):
    return {"count": len(timings), "median_ms": round(statistics.median(timings), 1),
            "p99_ms": round(percentile(timings, 0.99), 1), "max_ms": round(max(timings), 1)}


def heads():
    from clinicrecords.db import migrations

    return {"tenant": migrations.head("tenant"), "control": migrations.head("control")}


def read_manifest(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def write_manifest(path, manifest):
    """Written whole and then renamed: a run cut short never leaves half a manifest."""
    manifest["written_at"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(manifest))
    partial.replace(path)


def _has_control_schema(connection):
    from sqlalchemy import text

    return connection.scalar(text("SELECT to_regclass('control.clinics') IS NOT NULL"))


def unlisted_clinics(engine, manifest, database):
    """How many clinics the database holds beyond those `manifest` lists, or why it does not match (a string):
    counts only, cheap at 10,000. A build cut short leaves up to CHECKPOINT clinics created since its manifest
    was last written (`kept` lists them); more than that, or a listed clinic missing, is another database."""
    from sqlalchemy import func, select

    from clinicrecords.access.models import Workspace
    from clinicrecords.clinics.models import Clinic

    if manifest.get("database") != database:
        return f"the manifest is of {manifest.get('database')!r}"
    listed = [uuid.UUID(clinic["id"]) for clinic in manifest["clinics"]]
    # The workspace's sandbox clinic is the one never listed.
    live = Clinic.schema_dropped_at.is_(None), Clinic.sandbox_of_workspace_id.is_(None)
    with engine.connect() as connection:
        if not _has_control_schema(connection):
            return "the database is empty"
        if not connection.scalar(select(func.count()).select_from(Workspace).where(
                Workspace.id == uuid.UUID(manifest["workspace_id"]))):
            return "its workspace is gone"
        present = connection.scalar(select(func.count()).select_from(Clinic).where(*live, Clinic.id.in_(listed)))
        every = connection.scalar(select(func.count()).select_from(Clinic).where(*live))
    if present != len(listed) or not 0 <= every - len(listed) <= CHECKPOINT:
        return f"it lists {len(listed)} clinics, {present} of them present among {every}"
    return every - len(listed)


WORKSPACE = "Bench tenants"


def adopt(registry, database):
    """The manifest of a cluster built before manifests were written, or None when the database holds none (or
    holds two): the workspace's clinics in creation order with one allergy each, and a new live key (the first
    key's secret was never kept). Its creation was not timed: the manifest has no creation figures."""
    from sqlalchemy import text

    from bench.harness import request_in_transaction
    from clinicrecords.access import services

    with request_in_transaction(registry) as request:
        db = request.db
        if not _has_control_schema(db):
            return None
        workspaces = db.scalars(text("SELECT id FROM control.workspaces WHERE name = :name"),
                                {"name": WORKSPACE}).all()
        if len(workspaces) != 1:
            return None
        key = services.create_key(db, registry.settings["secrets.key_pepper"], workspace_id=workspaces[0],
                                  mode="live")[1]
    clinics = seeded_clinics(registry, workspaces[0])
    log(f"{database}: adopted {len(clinics)} clinics built before the manifest (with a new key)")
    return {"database": database, "workspace_id": str(workspaces[0]), "key": key, "clinics": clinics,
            "creation_ms": [], "creation": None, "heads": heads(), "adopted": True}


def seeded_clinics(registry, workspace_id, known=()):
    """The workspace's connected clinics (each seeded in the transaction that connected it) other than `known`,
    in creation order, with one allergy path each."""
    from sqlalchemy import select, text

    from bench.harness import request_in_transaction
    from clinicrecords.clinical.models import Allergy
    from clinicrecords.db.tenancy import bind_to_clinic

    with request_in_transaction(registry) as request:
        clinic_ids = request.db.scalars(text(
            "SELECT c.clinic_id FROM control.connections c JOIN control.clinics k ON k.id = c.clinic_id "
            "WHERE c.workspace_id = :w ORDER BY k.created_at"), {"w": workspace_id}).all()
    clinics = []
    for clinic_id in (clinic_id for clinic_id in clinic_ids if str(clinic_id) not in known):
        with request_in_transaction(registry) as request:
            bind_to_clinic(request.db, clinic_id)
            allergy_id = request.db.scalar(select(Allergy.id).limit(1))
        clinics.append({"id": str(clinic_id), "target": f"/v1/clinics/{clinic_id}/allergies/{allergy_id}"})
    return clinics


def create_workspace_key(registry):
    """The verified paid workspace the clinics are connected to, and a live key's secret."""
    from bench.harness import request_in_transaction
    from clinicrecords.access import services

    with request_in_transaction(registry) as request:
        workspace = services.create_workspace(request.db, WORKSPACE, verified=True, paid=True,
                                              terms_accepted=True)
        key = services.create_key(request.db, registry.settings["secrets.key_pepper"], workspace_id=workspace.id,
                                  mode="live")[1]
    return str(workspace.id), key


def create_clinics(registry, workspace_id, first, count):
    """Clinics `first` to `first + count - 1`, each created in its own transaction (timed, as `clinic create`
    does), then connected to the workspace and given a patient and an allergy (not timed). Yields
    ({"id", "target"}, milliseconds) per clinic."""
    from bench.harness import request_in_transaction
    from clinicrecords.access import services
    from clinicrecords.access.interfaces import ALL_PERMISSIONS
    from clinicrecords.clinical.models import Allergy
    from clinicrecords.clinics.services import create_clinic, open_clinic
    from clinicrecords.patients.services import PatientService

    for n in range(first, first + count):
        started = time.perf_counter()
        with request_in_transaction(registry) as request:
            clinic_id = create_clinic(request.db, f"Bench clinic {n}").id
        milliseconds = (time.perf_counter() - started) * 1000
        with request_in_transaction(registry) as request:
            services.grant_connection(request.db, uuid.UUID(workspace_id), clinic_id, ALL_PERMISSIONS)
            open_clinic(request.db, clinic_id)
            patient = PatientService(request.db).create({"given_name": "Ada", "family_name": f"Tenant {n}"})
            allergy = Allergy(id=uuid.uuid4(), patient_id=patient.id, substance_text="Peanut", criticality="high",
                              accepted_by="clinic")
            request.db.add(allergy)
            request.db.flush()
        yield {"id": str(clinic_id), "target": f"/v1/clinics/{clinic_id}/allergies/{allergy.id}"}, milliseconds


def build(registry, database, path, count, manifest=None):
    """Up to `count` clinics: those of `manifest` kept, the missing ones created and appended, the manifest
    written. Returns the manifest and the milliseconds of each clinic created now."""
    if manifest is None:
        workspace_id, key = create_workspace_key(registry)
        manifest = _summarised({"database": database, "workspace_id": workspace_id, "key": key, "clinics": [],
                                "creation_ms": [], "heads": heads()})
        write_manifest(path, manifest)  # the key's secret, kept from the start
    first = len(manifest["clinics"])
    created = []
    for clinic, milliseconds in create_clinics(registry, manifest["workspace_id"], first, max(count - first, 0)):
        manifest["clinics"].append(clinic)
        manifest["creation_ms"].append(round(milliseconds, 1))
        created.append(milliseconds)
        if len(created) % 100 == 0:
            log(f"  {first + len(created)}/{count} clinics, median creation {statistics.median(created):.0f} ms")
        if len(created) % CHECKPOINT == 0:
            write_manifest(path, _summarised(manifest))
    write_manifest(path, _summarised(manifest))
    return manifest, created


def _summarised(manifest):
    manifest["creation"] = creation_summary(manifest["creation_ms"]) if manifest["creation_ms"] else None
    return manifest


def forget(settings, database, path):
    """The database and its manifest gone (the database only on the embedded PostgreSQL: with DATABASE_URL
    emptying it is the operator's, and a run refuses to build on top of clinics no manifest describes)."""
    from clinicrecords.db import embedded
    from clinicrecords.settings import read, var_dir

    path.unlink(missing_ok=True)
    if not os.environ.get("DATABASE_URL"):
        embedded.drop_database(var_dir(read(settings)), database)


def prepare(settings, path, count, fresh=False, workers=2):
    """The app on the kept cluster, brought to `count` clinics: reused when the manifest matches the database,
    else (or with `fresh`) built from nothing. Returns (app, manifest, report), where report has `built`,
    `creation` and `upgrade` (the real migrate_all before anything else, timed: it moves schemas when the
    migrations moved since the build)."""
    from clinicrecords import make_config
    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import migrations
    from clinicrecords.settings import read

    database = settings["database.name"]
    if fresh:
        forget(settings, database, path)
    app = make_config(settings).make_wsgi_app()
    manifest, unlisted = (None, 0) if fresh else kept(app, database, path)
    if manifest is None and _has_clinics(app.registry["db.engine"]):  # never built on top of
        if os.environ.get("DATABASE_URL"):
            sys.exit(f"{database} at DATABASE_URL holds clinics no manifest describes: empty it first")
        log(f"building {database} from nothing")
        app.registry["db.engine"].dispose()
        forget(settings, database, path)
        app = make_config(settings).make_wsgi_app()
    engine = app.registry["db.engine"]
    mended = restore_real_head(engine, workers, manifest["heads"]["tenant"]) if manifest is not None else None
    started = time.perf_counter()
    moved = migrations.migrate_all(engine, CLINIC_SCHEMAS, workers=workers, settings=read(settings))
    upgrade = {"built_at": manifest["heads"] if manifest else None, "now": heads(), "schemas_migrated": moved,
               "seconds": round(time.perf_counter() - started, 2),
               **({"one_column_mended": mended["schemas_downgraded"]} if mended and mended["schemas_downgraded"]
                  else {})}
    reused = min(count, len(manifest["clinics"])) if manifest else 0
    log(f"{database}: {reused} clinics kept, {max(count - reused, 0)} to create ...")
    manifest, created = build(app.registry, database, path, count, manifest)
    if manifest["heads"] != upgrade["now"]:
        manifest["heads"] = upgrade["now"]
        write_manifest(path, manifest)
    if created:
        creation = {**creation_summary(created), "measured_this_run": True}
    else:
        creation = {**(manifest["creation"] or {"count": 0}), "measured_this_run": False}  # none if adopted
    report = {"built": {"reused": reused, "created": len(created)}, "creation": creation, "upgrade": upgrade,
              "clinics_in_database": len(manifest["clinics"]) + unlisted,
              **({"clinics_unlisted": unlisted} if unlisted else {})}
    return app, manifest, report


def kept(app, database, path):
    """The kept cluster's manifest (read, else adopted) and how many clinics it does not list (one a build cut
    short created but never connected, at most), or (None, 0) when there is none that matches the database."""
    manifest = read_manifest(path) or adopt(app.registry, database)
    if manifest is None:
        return None, 0
    unlisted = unlisted_clinics(app.registry["db.engine"], manifest, database)
    if isinstance(unlisted, str):
        log(f"the kept {database} does not match its manifest: {unlisted}")
        return None, 0
    if unlisted:  # a build cut short: the clinics it finished since its last manifest are listed now, untimed
        found = seeded_clinics(app.registry, manifest["workspace_id"], {clinic["id"] for clinic in manifest["clinics"]})
        manifest["clinics"] += found
        write_manifest(path, manifest)
        unlisted -= len(found)
        log(f"{database}: {len(found)} clinics of a build cut short listed (untimed), {unlisted} left unlisted")
    return manifest, unlisted


def _has_clinics(engine):
    from sqlalchemy import text

    with engine.connect() as connection:
        return _has_control_schema(connection) and connection.scalar(text("SELECT count(*) FROM control.clinics"))


@contextlib.contextmanager
def one_column_scripts(head=None):
    """A copy of alembic/tenant in a temporary directory with the throwaway one-column revision on top of `head`
    (the real head unless said)."""
    from clinicrecords.db import migrations

    head = head or migrations.head("tenant")
    with tempfile.TemporaryDirectory(prefix="bench-tenant-scripts-") as scripts:
        location = Path(scripts) / "tenant"
        shutil.copytree(migrations.ALEMBIC_DIR / "tenant", location, ignore=shutil.ignore_patterns("__pycache__"))
        (location / "versions" / f"{ONE_COLUMN}.py").write_text(REVISION.format(head=head))
        yield str(location)


def restore_real_head(engine, workers, head=None):
    """Every schema the one-column revision reached, downgraded to the real head again (or to `head`, where a
    cut-short run had put it on top of), by as many worker processes as migrate_all uses (timed). Returns
    {"schemas_downgraded", "seconds"}."""
    from sqlalchemy import select

    from clinicrecords.clinics.models import Clinic
    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import migrations

    with engine.connect() as connection:
        pending = connection.scalars(select(Clinic.id).where(Clinic.schema_revision == ONE_COLUMN,
                                                             Clinic.schema_dropped_at.is_(None))).all()
    started = time.perf_counter()
    if pending:
        url = engine.url.render_as_string(hide_password=False)
        with one_column_scripts(head) as location:
            migrations.head("tenant", location)  # the scripts read once here: the forked workers inherit them
            downgrade = functools.partial(migrations.downgrade_clinic, url, CLINIC_SCHEMAS,
                                          destination=head or migrations.head("tenant"), script_location=location)
            context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
            with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=context) as pool:
                list(pool.map(downgrade, pending))
    return {"schemas_downgraded": len(pending), "seconds": round(time.perf_counter() - started, 2)}


def left_off_head(engine):
    """What says the schemas are not at the real head: clinics recorded at another revision, and the throwaway
    column still present in some schema's table."""
    from sqlalchemy import text

    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import migrations

    with engine.connect() as connection:
        columns = connection.scalar(text("SELECT count(*) FROM pg_catalog.pg_attribute WHERE attname = 'bench_note' "
                                         "AND NOT attisdropped"))
    return {"behind_head": len(migrations.clinics_behind(engine, CLINIC_SCHEMAS)), "one_column_left": columns}
