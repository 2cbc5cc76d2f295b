"""`python -m bench.tenants [--clinics 2000] [--smoke]`: the service with many clinic schemas on one PostgreSQL.

In a database of its own on the embedded PostgreSQL (or DATABASE_URL), under bench's var dir:

1. creates N clinics through the operator path (`create_clinic` in its own transaction, as `clinic create`
   does) and quotes the median/p99 milliseconds of one creation; each clinic is then connected to one live
   workspace key and given a patient and an allergy;
2. GET one allergy with requests spread at random over the first 10 clinics (one server process) and over
   all N clinics (another, fresh, server process), in alternating pairs: the median latency ratio N/10
   (target <= 1.2) and each process's RSS after its load (ratio target <= 1.5);
3. migrates all N schemas for a one-column revision: a throwaway revision written into a copy of
   alembic/tenant in a temporary directory, applied by the real `migrate_all` (target <= 5 minutes).

Prints one JSON object on stdout (progress on stderr); exit 1 on request errors or a failed migration.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "clinicrecords_bench_tenants"
SMALL = 10
TARGETS = {"latency_ratio": 1.2, "memory_ratio": 1.5, "create_median_ms": 500, "migrate_all_seconds": 300}

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


def log(message):
    print(message, file=sys.stderr, flush=True)


def _percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def create_clinics(registry, count):
    """N clinics, each created in its own transaction (timed), then connected and seeded (not timed)."""
    from bench.__main__ import request_in_transaction
    from clinicrecords.access import services
    from clinicrecords.access.interfaces import ALL_PERMISSIONS
    from clinicrecords.clinical.models import Allergy
    from clinicrecords.clinics.services import create_clinic, open_clinic
    from clinicrecords.patients.services import PatientService

    with request_in_transaction(registry) as request:
        workspace = services.create_workspace(request.db, "Bench tenants", verified=True, paid=True,
                                              terms_accepted=True)
        key = services.create_key(request.db, registry.settings["secrets.key_pepper"], workspace_id=workspace.id,
                                  mode="live")[1]
    timings, targets = [], []
    for n in range(count):
        started = time.perf_counter()
        with request_in_transaction(registry) as request:
            clinic_id = create_clinic(request.db, f"Bench clinic {n}").id
        timings.append((time.perf_counter() - started) * 1000)
        with request_in_transaction(registry) as request:
            services.grant_connection(request.db, workspace.id, clinic_id, ALL_PERMISSIONS)
            open_clinic(request.db, clinic_id)
            patient = PatientService(request.db).create({"given_name": "Ada", "family_name": f"Tenant {n}"})
            allergy = Allergy(id=uuid.uuid4(), patient_id=patient.id, substance_text="Peanut", criticality="high",
                              accepted_by="clinic")
            request.db.add(allergy)
            request.db.flush()
            targets.append(f"/v1/clinics/{clinic_id}/allergies/{allergy.id}")
        if (n + 1) % 100 == 0:
            log(f"  {n + 1}/{count} clinics, median creation {statistics.median(timings):.0f} ms")
    return key, targets, {"count": count, "median_ms": round(statistics.median(timings), 1),
                          "p99_ms": round(_percentile(timings, 0.99), 1), "max_ms": round(max(timings), 1)}


def backend_memory(settings, application_name):
    """The PostgreSQL backends serving one server process: how many, and their private memory (RssAnon
    from /proc; shared buffers excluded), which is where each backend's catalog cache grows per schema."""
    from sqlalchemy import text

    from clinicrecords.db import make_engine
    from clinicrecords.settings import read

    engine = make_engine(read(settings), pool_size=1)
    try:
        with engine.connect() as connection:
            pids = connection.execute(text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
                                      {"name": application_name}).scalars().all()
    finally:
        engine.dispose()
    private = []
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:  # PostgreSQL on another host: not measurable from here
            return {"backends": len(pids), "private_mb_total": None}
        private += [int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("RssAnon:")]
    return {"backends": len(pids), "private_mb_total": round(sum(private), 1),
            "private_mb_max": round(max(private), 1) if private else None}


def spread_load(settings, var, key, targets, pairs, seconds):
    """GET one allergy over the first SMALL clinics and over all of them, from two fresh server processes."""
    from bench.__main__ import Server, measure, summarise

    few = Server("tenants-few", {**settings, "database.application_name": "bench-tenants-few"}, var)
    many = Server("tenants-many", {**settings, "database.application_name": "bench-tenants-many"}, var)
    try:
        specs = {name: {"url": server.url(paths[0]), "paths": paths, "connections": 16,
                        "headers": {"Authorization": f"Bearer {key}"}}
                 for name, server, paths in (("few", few, targets[:SMALL]), ("many", many, targets))}
        servers = {"few": few, "many": many}
        for name in ("few", "many"):
            measure(servers[name], specs[name], min(seconds, 3))  # warm-up: pools filled, statements compiled
        runs = {"few": [], "many": []}
        for _ in range(pairs):
            for name in ("few", "many"):
                runs[name].append(measure(servers[name], specs[name], seconds))
        memory = {"few_rss_mb": round(few.rss_mb(), 1), "many_rss_mb": round(many.rss_mb(), 1),
                  "few_backends": backend_memory(settings, "bench-tenants-few"),
                  "many_backends": backend_memory(settings, "bench-tenants-many")}
    finally:
        few.stop()
        many.stop()
    few_summary, many_summary = summarise(runs["few"]), summarise(runs["many"])
    return {"clinics_few": SMALL, "clinics_many": len(targets), "few": few_summary, "many": many_summary,
            "latency_ratio": round(many_summary["p50_ms"] / few_summary["p50_ms"], 3),
            "rps_ratio": round(many_summary["rps"] / few_summary["rps"], 3), "memory": memory,
            "memory_ratio": round(memory["many_rss_mb"] / memory["few_rss_mb"], 3), "runs": runs}


def migrate_one_column(engine, workers):
    """Every clinic schema through a throwaway one-column revision, by the real migrate_all."""
    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import migrations

    with tempfile.TemporaryDirectory(prefix="bench-tenant-scripts-") as scripts:
        location = Path(scripts) / "tenant"
        shutil.copytree(migrations.ALEMBIC_DIR / "tenant", location, ignore=shutil.ignore_patterns("__pycache__"))
        (location / "versions" / "bench_one_column.py").write_text(REVISION.format(head=migrations.head("tenant")))
        started = time.perf_counter()
        moved = migrations.migrate_all(engine, CLINIC_SCHEMAS, workers=workers, script_location=str(location))
        seconds = time.perf_counter() - started
        behind = len(migrations.clinics_behind(engine, CLINIC_SCHEMAS, script_location=str(location)))
    return {"schemas_migrated": moved, "seconds": round(seconds, 1), "workers": workers, "behind_after": behind,
            "ms_per_schema": round(seconds * 1000 / max(moved, 1), 1)}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.tenants", description=__doc__.splitlines()[0])
    parser.add_argument("--clinics", type=int, default=2000)
    parser.add_argument("--smoke", action="store_true", help="20 clinics, short runs; fails on errors only")
    parser.add_argument("--pairs", type=int, help="alternating (10 clinics, N clinics) pairs (default 3)")
    parser.add_argument("--seconds", type=int, help="seconds of load per run (default 10)")
    parser.add_argument("--workers", type=int, default=2, help="migrate-all worker processes (default 2)")
    args = parser.parse_args(argv)
    count = 20 if args.smoke else max(args.clinics, SMALL)
    pairs = args.pairs or (1 if args.smoke else 3)
    seconds = args.seconds or (2 if args.smoke else 10)

    from pyramid.paster import get_appsettings

    from bench.__main__ import bench_var
    from clinicrecords import make_config
    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import embedded, migrations
    from clinicrecords.settings import read, var_dir

    var = bench_var()
    settings = dict(get_appsettings(str(ROOT / "development.ini"), "main"))
    settings.update({"database.name": DATABASE, "huey.backend": "memory", "huey.consumer_in_process": "false",
                     "ratelimit.live_per_minute": "100000000", "clinicrecords.var": str(var)})
    started = time.perf_counter()
    if not os.environ.get("DATABASE_URL"):
        embedded.drop_database(var_dir(read(settings)), DATABASE)
    app = make_config(settings).make_wsgi_app()
    engine = app.registry["db.engine"]
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    log(f"creating {count} clinics in {DATABASE} ...")
    key, targets, creation = create_clinics(app.registry, count)
    engine.dispose()
    log(f"GET one allergy over {SMALL} and over {count} clinics: {pairs} pair(s) of {seconds} s")
    spread = spread_load(settings, var, key, targets, pairs, seconds)
    log(f"migrating {count} schemas for a one-column revision ...")
    migration = migrate_one_column(engine, args.workers)
    engine.dispose()
    result = {"clinics": count, "creation": creation, "spread": spread, "migrate_all": migration,
              "targets": TARGETS, "load_average": os.getloadavg(),
              "total_seconds": round(time.perf_counter() - started, 1)}
    print(json.dumps(result))
    errors = spread["few"]["errors"] + spread["many"]["errors"]
    if errors or migration["behind_after"] or migration["schemas_migrated"] < count:
        log(f"FAILED: {errors} request errors, {migration['behind_after']} schemas behind after migrate")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
