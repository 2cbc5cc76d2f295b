"""`python -m bench [--smoke]`: the service under HTTP load beside a bare reference, interleaved.

Starts two waitress processes on 127.0.0.1 (8 threads, no debug, one log line per request to a file): the
service on the embedded defaults (development.ini) in a database of its own under its own var dir, and the
reference (bench/server.py: a bare Pyramid view, same pool, BEGIN; SELECT by primary key or N rows; COMMIT).
Load comes from another process (`wrk`, else bench/load.py's threaded client). Each scenario runs in
alternating pairs (scenario, reference); medians are quoted with their ratios. Server CPU per request is the
server process's user+system time (/proc/PID/stat) over the requests it answered (PostgreSQL's own CPU is
not in it). Round trips to PostgreSQL per request of each scenario and its reference are counted on the wire
in this process after the timed runs. Then the existing bench modules (events, imports, listings) run as they
are. The table goes to stdout, everything to bench/results/<timestamp>.json. `--smoke` (about a minute) fails
on errors only.
"""

import argparse
import contextlib
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from bench import load
from bench.harness import DATABASE, ROOT, Server, bench_settings, bench_var, measure, ratios_to, seed, summarise

TARGETS = {  # docs/performance.md: minimum rps ratio, maximum cpu/request ratio, maximum p99 ratio
    "get_one_allergy": {"rps": 0.6, "cpu": 1.7, "p99": 2.0},
    "list_100_plain": {"rps": 0.5},
    "list_100_fhir": {"rps": 0.5},
    "post_allergy_32c": {"rps": 0.35},
}


def scenarios(seeded, service, reference):
    clinic, allergy = seeded["clinic_id"], seeded["allergy_id"]
    auth = {"Authorization": f"Bearer {seeded['key']}"}
    one_ref = {"url": reference.url(f"/ref/{clinic}/allergies/{allergy}"), "connections": 16}
    page_ref = {"url": reference.url(f"/ref/{clinic}/allergies?limit=100"), "connections": 16}
    body = json.dumps({"patient_id": seeded["patient_id"], "substance": {"text": "Bench {{n}}"},
                       "clinical_status": "active", "criticality": "low"})
    return {
        "get_one_allergy": ({"url": service.url(f"/v1/clinics/{clinic}/allergies/{allergy}"), "headers": auth,
                             "connections": 16}, one_ref),
        "list_100_plain": ({"url": service.url(f"/v1/clinics/{clinic}/allergies?limit=100"), "headers": auth,
                            "connections": 16}, page_ref),
        "list_100_fhir": ({"url": service.url(f"/v1/clinics/{clinic}/allergies?limit=100"),
                           "headers": {**auth, "Accept": "application/fhir+json"}, "connections": 16}, page_ref),
        "post_allergy_32c": ({"url": service.url(f"/v1/clinics/{clinic}/allergies"), "method": "POST",
                              "headers": {**auth, "Content-Type": "application/json"}, "body": body, "unique": True,
                              "connections": 32}, {**one_ref, "connections": 32}),
    }


def run_scenarios(seeded, service, reference, pairs, seconds, warmup):
    report = {}
    for name, (spec, ref_spec) in scenarios(seeded, service, reference).items():
        measure(service, spec, warmup)
        measure(reference, ref_spec, warmup)
        runs = {"service": [], "reference": []}
        for _ in range(pairs):  # alternating pairs, so drift on a shared machine hits both alike
            runs["service"].append(measure(service, spec, seconds))
            runs["reference"].append(measure(reference, ref_spec, seconds))
        mine, ref = summarise(runs["service"]), summarise(runs["reference"])
        ratios = ratios_to(mine, ref)
        report[name] = {"service": mine, "reference": ref, "ratios": ratios, "targets": TARGETS.get(name, {}),
                        "runs": runs}
        print(f"  {name}: {mine['rps']:.0f} rps vs {ref['rps']:.0f} (x{ratios['rps']}), errors {mine['errors']}",
              flush=True)
    return report


# bench.profile's in-process request for each scenario, and the reference path each is compared with.
ROUND_TRIP_SCENARIOS = {"get_one_allergy": ("one", "one"), "list_100_plain": ("list", "page"),
                        "list_100_fhir": ("fhir", "page"), "post_allergy_32c": ("post", "one")}


def count_round_trips(settings, seeded):
    """Round trips to PostgreSQL per request of each scenario and of its reference, counted on the wire in
    this process (clinicrecords.db.round_trips; BEGIN and COMMIT included), apart from the timed runs."""
    import webtest  # here rather than at the top: bench.profile imports this module

    from bench.profile import round_trips_per_request, scenario_call
    from bench.server import reference_app, service_app
    from clinicrecords.db import make_engine
    from clinicrecords.settings import read

    service = webtest.TestApp(service_app(settings), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    reference_engine = make_engine(read(settings))
    reference = webtest.TestApp(reference_app(settings, reference_engine))
    clinic, allergy = seeded["clinic_id"], seeded["allergy_id"]
    reference_calls = {"one": lambda client: client.get(f"/ref/{clinic}/allergies/{allergy}"),
                       "page": lambda client: client.get(f"/ref/{clinic}/allergies?limit=100")}
    counted = {}
    for name, (scenario, reference_path) in ROUND_TRIP_SCENARIOS.items():
        counted[name] = {
            "service": round(round_trips_per_request(service, scenario_call(seeded, scenario)), 2),
            "reference": round(round_trips_per_request(reference, reference_calls[reference_path],
                                                       engine=reference_engine), 2)}
    service.app.registry["db.engine"].dispose()
    reference_engine.dispose()
    return counted


MODULES = {  # the existing bench modules, called as they are: (full arguments, smoke arguments)
    "events": (["--deliveries", "500", "--events", "20000"], ["--deliveries", "10", "--events", "400"]),
    "imports": (["--runs", "3", "--rows", "100"], ["--runs", "1", "--rows", "10"]),
    "listings": (["--pharmacies", "1000", "--items", "100", "--repeats", "200"],
                 ["--pharmacies", "20", "--items", "20", "--repeats", "20"]),
    # "Several processes" and "Tenant scale" (docs/performance.md); they print one JSON object.
    # 1,000 clinics keeps the whole bench under 15 minutes; `python -m bench.tenants` alone runs 2,000. In a
    # kept cluster of their own: the default one may hold 10,000 clinics, which its catalog and migrate steps
    # would measure whole.
    "processes": ([], ["--smoke", "--seconds", "1"]),
    "tenants": (["--clinics", "1000", "--database", "clinicrecords_bench_tenants_full_run"],
                ["--smoke", "--seconds", "1"]),
    # The request log (decision 0030): GET one with the request log's writer off and on (must stay within 5%).
    "request_log": (["--pairs", "3"], ["--smoke", "--seconds", "1"]),
    # GET one and POST on the least the fixed design and the spec's writes allow (the design's floor),
    # beside the reference and the service.
    "design_floor": (["--rounds", "2", "--seconds", "8"], ["--smoke"]),
}


def run_modules(smoke, env):
    results = {}
    for name, (full, small) in MODULES.items():
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", f"bench.{name}", *(small if smoke else full)], cwd=ROOT,
                              env=env, capture_output=True, text=True)
        results[name] = {"exit": done.returncode, "seconds": round(time.perf_counter() - started, 1),
                         "output": done.stdout.strip(), "stderr": done.stderr.strip()[-2000:]}
        with contextlib.suppress(ValueError):  # modules that print one JSON object keep it as data
            results[name]["result"] = json.loads(results[name]["output"])
        print(f"  bench.{name}: exit {done.returncode} in {results[name]['seconds']} s", flush=True)
    return results


def machine():
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(), "system": platform.platform(),
            "load_average": os.getloadavg(), "load_generator": load.engine()}


def table(report):
    lines = [f"{'scenario':<18} {'rps':>8} {'ref rps':>8} {'ratio':>6} {'p50 ms':>7} {'p99 ms':>7} {'ref p99':>7} "
             f"{'cpu ms/req':>10} {'ref cpu':>8} {'cpu x':>6} {'errors':>6} {'trips':>5} {'ref trips':>9}"]
    for name, row in report.items():
        s, r, x = row["service"], row["reference"], row["ratios"]
        lines.append(f"{name:<18} {s['rps']:>8.0f} {r['rps']:>8.0f} {x['rps']:>6.2f} {s['p50_ms']:>7.2f} "
                     f"{s['p99_ms']:>7.2f} {r['p99_ms']:>7.2f} {s['cpu_ms_per_request']:>10.3f} "
                     f"{r['cpu_ms_per_request']:>8.3f} {x['cpu']:>6.2f} {s['errors']:>6} "
                     f"{row['round_trips']['service']:>5.1f} {row['round_trips']['reference']:>9.1f}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="about a minute; fails on errors, not on speed")
    parser.add_argument("--pairs", type=int, help="alternating (scenario, reference) pairs (default 3)")
    parser.add_argument("--seconds", type=int, help="seconds of load per run (default 10)")
    parser.add_argument("--no-modules", action="store_true", help="skip bench.events/imports/listings")
    args = parser.parse_args(argv)
    pairs = args.pairs or (1 if args.smoke else 3)
    seconds = args.seconds or (2 if args.smoke else 10)
    warmup = 1 if args.smoke else 3

    var = bench_var()
    started = time.perf_counter()
    settings = bench_settings()
    print(f"seeding ({DATABASE} under {var}) ...", flush=True)
    seeded = seed(settings, 100)
    settings["clinicrecords.var"] = str(var)
    service, reference = Server("app", settings, var), Server("reference", settings, var)
    try:
        print(f"load from {load.engine()}: {pairs} pair(s) of {seconds:g} s per scenario", flush=True)
        report = run_scenarios(seeded, service, reference, pairs, seconds, warmup)
        memory = {"service_rss_mb": service.rss_mb(), "reference_rss_mb": reference.rss_mb()}
    finally:
        service.stop()
        reference.stop()
    for name, trips in count_round_trips(settings, seeded).items():
        report[name]["round_trips"] = trips
    modules = {} if args.no_modules else run_modules(args.smoke, dict(os.environ))
    result = {"started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), "smoke": args.smoke,
              "pairs": pairs, "seconds_per_run": seconds, "machine": machine(), "scenarios": report,
              "memory": memory, "modules": modules, "total_seconds": round(time.perf_counter() - started, 1)}
    print()
    print(table(report))
    for name, module in modules.items():
        print(f"\n== bench.{name} (exit {module['exit']})\n{module['output']}")
    out = ROOT / "bench" / "results" / f"{datetime.datetime.now():%Y%m%dT%H%M%S}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"\n{out.relative_to(ROOT)} ({result['total_seconds']} s)")
    failures = [f"{name} ({side}): {row[side]['errors']} errors" for name, row in report.items()
                for side in ("service", "reference") if row[side]["errors"]]
    failures += [f"bench.{name} exited {m['exit']}:\n{m['stderr']}" for name, m in modules.items() if m["exit"]]
    if failures:
        print("FAILED:\n" + "\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
