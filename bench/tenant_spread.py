"""`python -m bench.tenant_spread --over few|many [--requests N] [--profile] | --http [--pairs P --seconds S]`:
in-process CPU per request of GET one allergy spread at random over the first 10 clinics (`few`) or over every
clinic (`many`) of the database `python -m bench.tenants` left behind (run that first; its clinics are reused,
never created here). `--http` runs bench.tenants' own step 3 again on that database instead (two waitress
processes, wrk, p50 / CPU / backends' memory for few and many) and prints its summary.

One process, one spread: the caches that hold one entry per statement text (SQLAlchemy's, psycopg's parsed
queries and prepared statements, the prebuilt statements) are per process, so `few` and `many` must not share
one. Alternate runs of each to compare, as bench.profile's figures are compared (docs/performance.md,
"Tenant scale"). No waitress, no HTTP, no wrk: the service's own Python CPU, which the HTTP spread of
bench.tenants measures with the load generator and PostgreSQL on the same cores. `--profile` prints the
functions that took the most CPU (cProfile), to see where a spread over many clinics spends what few do not.

The first run writes the key and the request paths to `var/bench/tenant-spread.json` (a new live key for the
workspace bench.tenants connected to every clinic, and one allergy of each clinic).
"""

import argparse
import cProfile
import json
import pstats
import random
import sys
import time
import uuid

from bench.harness import bench_var, request_in_transaction
from bench.tenants import DATABASE, ROOT, SMALL

WORKSPACE = "Bench tenants"


def _seeded(registry, path):
    """The key and one allergy path per clinic, in the order the clinics were created."""
    if path.exists():
        return json.loads(path.read_text())
    from sqlalchemy import select, text

    from clinicrecords.access import services
    from clinicrecords.clinical.models import Allergy
    from clinicrecords.db.tenancy import bind_to_clinic

    with request_in_transaction(registry) as request:
        db = request.db
        workspace_id = db.scalar(text("SELECT id FROM control.workspaces WHERE name = :name"), {"name": WORKSPACE})
        if workspace_id is None:
            sys.exit(f"no bench.tenants clinics in {DATABASE}: run python -m bench.tenants first")
        key = services.create_key(db, registry.settings["secrets.key_pepper"], workspace_id=workspace_id,
                                  mode="live")[1]
        clinics = db.scalars(text("SELECT c.clinic_id FROM control.connections c JOIN control.clinics k "
                                  "ON k.id = c.clinic_id WHERE c.workspace_id = :w ORDER BY k.created_at"),
                             {"w": workspace_id}).all()
    paths = []
    for clinic_id in clinics:
        with request_in_transaction(registry) as request:
            bind_to_clinic(request.db, clinic_id)
            allergy_id = request.db.scalar(select(Allergy.id).limit(1))
        paths.append(f"/v1/clinics/{clinic_id}/allergies/{allergy_id}")
    seeded = {"key": key, "paths": paths}
    path.write_text(json.dumps(seeded))
    return seeded


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.tenant_spread", description=__doc__.splitlines()[0])
    parser.add_argument("--over", choices=("few", "many"))
    parser.add_argument("--http", action="store_true", help="bench.tenants' HTTP spread, few against many")
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--warm-up", type=int, default=1000)
    parser.add_argument("--profile", action="store_true", help="print the 25 functions with the most CPU")
    parser.add_argument("--sort", default="tottime", help="the profile's order (pstats: tottime, cumulative)")
    args = parser.parse_args(argv)
    import webtest
    from pyramid.paster import get_appsettings

    from clinicrecords import make_config

    var = bench_var()
    settings = {**get_appsettings(str(ROOT / "development.ini"), "main"), "database.name": DATABASE,
                "huey.backend": "memory", "huey.consumer_in_process": "false",
                "ratelimit.live_per_minute": "100000000", "clinicrecords.var": str(var)}
    app = make_config(settings).make_wsgi_app()
    seeded = _seeded(app.registry, var / "tenant-spread.json")
    if args.http:
        from bench.tenants import spread_load

        app.registry["db.engine"].dispose()
        spread = spread_load(settings, var, seeded["key"], seeded["paths"], args.pairs, args.seconds)
        print(json.dumps({name: value for name, value in spread.items() if name != "runs"}))
        return
    if args.over is None:
        parser.error("--over few|many, or --http")
    paths = seeded["paths"][:SMALL] if args.over == "few" else seeded["paths"]
    client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    headers = {"Authorization": f"Bearer {seeded['key']}"}
    chosen = random.Random(uuid.UUID(int=36).int)

    def run(count):
        for _ in range(count):
            client.get(chosen.choice(paths), headers=headers)

    run(args.warm_up)
    profiler = cProfile.Profile(time.process_time) if args.profile else None
    cpu = time.process_time()
    if profiler:
        profiler.enable()
    run(args.requests)
    if profiler:
        profiler.disable()
    cpu = time.process_time() - cpu
    print(json.dumps({"over": args.over, "clinics": len(paths), "requests": args.requests,
                      "cpu_ms_per_request": round(cpu * 1000 / args.requests, 3)}))
    if profiler:
        pstats.Stats(profiler, stream=sys.stdout).sort_stats(args.sort).print_stats(25)
    app.registry["db.engine"].dispose()


if __name__ == "__main__":
    main()
