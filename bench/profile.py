"""`python -m bench.profile [--scenario one|list|fhir|post|create] [--requests N] [--cpu-only | --phases]
[--set NAME=VALUE]`: pyinstrument profile of one benchmark scenario through the whole WSGI stack (in-process, on
the bench database; `pip install -e .[bench]` first). Before profiling it measures this process's CPU per request
without the profiler (the figure docs/performance.md quotes as "in-process CPU ms/req"): the service's Python CPU,
without waitress or HTTP.
`--phases` prints instead each part of the request path as a share of the request's CPU (cProfile on CPU time;
the profiler inflates call-heavy code, so shares, not milliseconds).
`--against-design` (GET one or POST) measures instead the service and the design's floor (`bench.design_floor`:
the fixed design and the spec's writes, nothing else) in this one process, in alternating rounds: what the
service does beyond them, in CPU per request, without waitress or HTTP between them.
"""

import argparse
import cProfile
import os
import pstats
import re
import statistics
import time
import uuid
from pathlib import Path

from bench.harness import ROOT, bench_settings, seed


def scenario_call(seeded, scenario):
    clinic, allergy = seeded["clinic_id"], seeded["allergy_id"]
    auth = {"Authorization": f"Bearer {seeded['key']}"}
    if scenario == "one":
        return lambda client: client.get(f"/v1/clinics/{clinic}/allergies/{allergy}", headers=auth)
    if scenario in ("list", "fhir"):
        headers = {**auth, "Accept": "application/fhir+json"} if scenario == "fhir" else auth
        return lambda client: client.get(f"/v1/clinics/{clinic}/allergies?limit=100", headers=headers)

    if scenario == "create":  # a record written through the ORM (a patient), not a send for review
        from clinicrecords.patients.schemas import PatientCreate
        return lambda client: client.post_json(f"/v1/clinics/{clinic}/patients", PatientCreate.EXAMPLE, status=201,
                                               headers={**auth, "Idempotency-Key": str(uuid.uuid4())})

    def post(client):
        body = {"patient_id": seeded["patient_id"], "substance": {"text": f"Profile {uuid.uuid4().hex[:8]}"},
                "clinical_status": "active", "criticality": "low"}
        client.post_json(f"/v1/clinics/{clinic}/allergies", body, status=202,
                         headers={**auth, "Idempotency-Key": str(uuid.uuid4())})
    return post


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=("one", "list", "fhir", "post", "create"), default="one")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--cpu-only", action="store_true", help="measure CPU per request, do not profile")
    parser.add_argument("--phases", action="store_true", help="each part of the request path's share of CPU")
    parser.add_argument("--against-design", action="store_true",
                        help="the service's CPU per request against the design floor's, alternated (one, post)")
    parser.add_argument("--rounds", type=int, default=7, help="with --against-design: rounds of --requests each")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting for the service, e.g. database.pooled=true (no prepared statements)")
    args = parser.parse_args(argv)
    import webtest

    from clinicrecords import make_config

    os.environ.setdefault("CLINICRECORDS_VAR", str(Path(ROOT / "var" / "bench")))
    settings = bench_settings()
    seeded = seed(settings, 100)
    settings.update(item.split("=", 1) for item in args.set)
    client = webtest.TestApp(make_config(settings).make_wsgi_app(), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    call = scenario_call(seeded, args.scenario)
    if args.against_design:
        print_against_design(settings, seeded, client, call, args)
        return
    for _ in range(100):
        call(client)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(args.requests):
        call(client)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{args.scenario}: in-process CPU {cpu * 1000 / args.requests:.3f} ms/req, "
          f"wall {wall * 1000 / args.requests:.3f} ms/req over {args.requests} requests")
    print(f"{args.scenario}: {round_trips_per_request(client, call):.2f} round trips/request to PostgreSQL "
          "(BEGIN and COMMIT included)")
    if args.cpu_only:
        return
    if args.phases:
        print_phases(call, client, args.requests)
        return
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0005)
    with profiler:
        for _ in range(args.requests):
            call(client)
    print(profiler.output_text(unicode=True, color=False, show_all=False))


def print_against_design(settings, seeded, client, call, args):
    """Each round runs the service then the design's floor (`--requests` each); the medians and the smallest of
    each, and the median of the rounds' differences."""
    import webtest

    from bench.design_floor import design_app

    if args.scenario not in ("one", "post"):
        raise SystemExit("--against-design measures GET one and POST (the design floor's two requests)")
    design = webtest.TestApp(design_app(settings, seeded["key"]), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    servers = {"service": client, "design": design}
    for app in servers.values():
        for _ in range(200):
            call(app)
    spent = {name: [] for name in servers}
    for _ in range(args.rounds):
        for name, app in servers.items():
            cpu = time.process_time()
            for _ in range(args.requests):
                call(app)
            spent[name].append((time.process_time() - cpu) * 1e6 / args.requests)
    beyond = statistics.median(s - d for s, d in zip(spent["service"], spent["design"]))
    for name, values in spent.items():
        print(f"{args.scenario} {name}: in-process CPU {statistics.median(values):.0f} us/req median, "
              f"{min(values):.0f} smallest, over {args.rounds} rounds of {args.requests}")
    print(f"{args.scenario}: the service beyond the design's floor {beyond:.0f} us/req (median of the rounds' "
          f"differences), {beyond / statistics.median(spent['design']):.0%} of the floor")


def round_trips_per_request(client, call, requests=50, engine=None):
    """Measured on the wire (clinicrecords.db.round_trips), after the CPU timing: the relay costs CPU. `engine`:
    the one the app behind `client` uses (the service's own by default)."""
    from clinicrecords.db.round_trips import RoundTrips

    with RoundTrips(engine or client.app.registry["db.engine"]) as trips:
        for _ in range(10):  # outside the count: the pool's connections, psycopg preparing on a 6th run
            call(client)
        trips.reset()
        for _ in range(requests):
            call(client)
        return trips.count / requests


# The parts of the request path docs/performance.md accounts for, by the function that does each.
PHASES = (
    ("entry (key gate, reach, binding, scope)", r"access/entry.py:\d+\(enter\)"),
    ("...key statement (cold or stale cache)", r"access/identity.py:\d+\(read_key\)"),
    ("...rate-limit counter and reach version", r"access/ratelimit.py:\d+\(rate_limit_check\)"),
    ("item read", r"clinical/services.py:\d+\(get\)"),
    ("page read", r"clinical/services.py:\d+\(list\)"),
    ("idempotency (claim, the view, record)", r"api/idempotency.py:\d+\(idempotent_view\)"),
    ("body parsed and validated", r"api/validation.py:\d+\(parse_body\)"),
    ("send: submission and outbox", r"clinical/views.py:\d+\(send_allergy\)"),
    ("representation and JSON", r"api/representations.py:\d+\(render_(one|page)\)"),
    ("audit entry: build", r"audit/services.py:\d+\(entry_values\)"),
    ("COMMIT (with the audit INSERT)", r"db/request_transaction.py:\d+\(tpc_vote\)"),
    ("service lookup (find_service)", r"clinicrecords/services.py:\d+\(find_service\)"),
    ("request log line", r"api/request_log.py:\d+\(log_request\)"),
)


def print_phases(call, client, requests):
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    for _ in range(requests):
        call(client)
    profile.disable()
    cumulative = {f"{path}:{line}({name})": stat[3] for (path, line, name), stat in pstats.Stats(profile).stats.items()}
    whole = sum(seconds for where, seconds in cumulative.items()
                if re.search(r"pyramid/router.py:\d+\(__call__\)", where))
    for label, pattern in PHASES:  # a part may contain another (a send finds services): shares can overlap
        seconds = sum(seconds for where, seconds in cumulative.items() if re.search(pattern, where))
        if seconds:
            print(f"{label:40s} {100 * seconds / whole:5.1f}%")


if __name__ == "__main__":
    main()
