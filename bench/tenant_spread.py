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

The key and the request paths are those bench.tenants kept in its manifest (`var/bench/tenants-manifest.json`: the
live key of the workspace connected to every clinic, and one allergy of each clinic): `many` is every clinic it
lists, of which a `bench.tenants --clinics N` run measured the first N.
"""

import argparse
import cProfile
import json
import pstats
import random
import sys
import time
import uuid

from bench.harness import bench_var
from bench.tenants import DATABASE, MANIFEST, ROOT, SMALL


def _seeded(path):
    """The key and one allergy path per clinic, in the order the clinics were created: bench.tenants' manifest."""
    from bench.tenant_cluster import read_manifest

    manifest = read_manifest(path)
    if manifest is None:
        sys.exit(f"no {path}: run python -m bench.tenants first")
    return {"key": manifest["key"], "paths": [clinic["target"] for clinic in manifest["clinics"]]}


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
    seeded = _seeded(var / MANIFEST)
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
