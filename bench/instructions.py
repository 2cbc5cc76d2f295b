"""`python -m bench.instructions [--scenario one|post|create] [--design] [--against CHECKOUT ...] [--runs 2]`: the
instructions one request costs in process, counted by valgrind (Debian's `valgrind`, installed through
scripts/apt-install when missing; cachegrind without its cache simulation), for this checkout and each other
one given, on the bench database.

A lever worth a few per cent of a request is below what CPU timing on this shared 2-core machine can tell apart
(alternated in-process runs move by 10-15% between processes minutes apart). The instructions a request
executes move far less: the count is the difference between a run of `--first` requests and one of `--then`,
divided by the requests between them, so start-up and warm-up cancel out. The requests are handed to the
application as a WSGI server hands them over (`bench.wsgi_client`): no test client's work is counted. Chance is
taken out (the collector's passes, the request log's timer: `worker`); what is left moves a count by 0.1-0.3%
on a quiet machine, up to 0.9% beside other work. PostgreSQL's own work is another process and is not counted.
`--design` counts the design's floor (`bench.design_floor`) in this checkout too, and for GET one the floor on
the pipelined protocol (`design_pipelined`).

Prints one JSON object: per checkout (and the design), each run's instructions per request and their median.
"""

import argparse
import contextlib
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from bench.harness import ROOT, bench_settings, seed

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")
WARM = 20  # requests before the collector is set aside: fewer than `--first`


def worker():
    """In the measured process: the app (or the design's floor) on the seeded clinic, then N requests."""
    from bench.profile import scenario_call
    from bench.wsgi_client import WSGIClient
    from clinicrecords import make_config

    seeded = json.loads(os.environ["BENCH_SEEDED"])
    settings = bench_settings()
    # The request log's writer wakes on a timer: under valgrind, a request takes milliseconds and a flush's own
    # work would recur every few requests, as often as the run is slow. Its entries are still written, in one
    # batch at exit, so their per-entry work stays in the count.
    settings["request_log.flush_interval_ms"] = str(10 ** 9)
    # The same for the metrics' reader (its pools, its answers), whose last read, at exit, is counted. This file
    # runs on the other checkout's package too (`--against`), which may be older than the reader.
    with contextlib.suppress(ImportError):
        from clinicrecords.observability import every_second

        every_second.READ_EVERY_SECONDS = 10 ** 9
    if os.environ.get("BENCH_DESIGN"):
        from bench.design_floor import design_app

        app = design_app(settings, seeded["key"], pipelined=os.environ["BENCH_DESIGN"] == "pipelined")
    else:
        app = make_config(settings).make_wsgi_app()
    client = WSGIClient(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    call = scenario_call(seeded, os.environ["BENCH_SCENARIO"])
    requests = int(os.environ["BENCH_REQUESTS"])
    for _ in range(WARM):
        call(client)
    # Everything alive after the warm-up is kept out of the collector's passes: a full pass over the start-up's
    # objects falls inside one run's requests or not by chance, and would move the count by more than a lever.
    gc.collect()
    gc.freeze()
    for _ in range(requests - WARM):
        call(client)


def instructions(checkout, environ, requests):
    """Instructions valgrind counts for one process of `requests` requests run from `checkout`."""
    env = {**environ, "PYTHONPATH": str(checkout), "PYTHONHASHSEED": "0", "BENCH_REQUESTS": str(requests)}
    # This file's worker, run against `checkout`'s code: another checkout need not have this module.
    run_worker = f"import runpy; runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')"
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           sys.executable, "-c", run_worker, "--worker"],
                          cwd=checkout, env=env, capture_output=True, text=True)
    found = _REFS.search(done.stderr)
    if done.returncode or not found:
        raise SystemExit(f"valgrind in {checkout} failed:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_request(checkout, environ, first, then):
    return round((instructions(checkout, environ, then) - instructions(checkout, environ, first)) / (then - first))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=("one", "list", "fhir", "post", "create"), default="one")
    parser.add_argument("--against", action="append", default=[], metavar="CHECKOUT",
                        help="another checkout (a git worktree) counted alternately with this one")
    parser.add_argument("--design", action="store_true", help="count the design's floor too (one, post)")
    parser.add_argument("--runs", type=int, default=2, help="runs of each (default 2)")
    parser.add_argument("--first", type=int, default=30)
    parser.add_argument("--then", type=int, default=130)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker()
    if not WARM < args.first < args.then:
        parser.error(f"--first must be over the warm-up's {WARM} requests and under --then")
    if shutil.which("valgrind") is None and shutil.which("apt-get"):
        subprocess.run([str(ROOT / "scripts" / "apt-install"), "valgrind"], check=False)  # as scripts/bench does wrk
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed and could not be: apt-get install valgrind")
    os.environ.setdefault("CLINICRECORDS_VAR", str(ROOT / "var" / "bench"))
    from bench.harness import service_metrics  # not in the worker, which may run on an older bench

    seeded = {name: str(value) for name, value in seed(bench_settings(), 100).items()}
    metrics, with_metrics = service_metrics(Path(os.environ["CLINICRECORDS_VAR"]), "instructions")
    environ = {**with_metrics, "BENCH_SEEDED": json.dumps(seeded), "BENCH_SCENARIO": args.scenario}
    sides = {"this": (ROOT, environ)}
    sides.update((str(Path(path).resolve()), (Path(path).resolve(), environ)) for path in args.against)
    if args.design:
        sides["design"] = (ROOT, {**environ, "BENCH_DESIGN": "1"})
        if args.scenario == "one":
            sides["design_pipelined"] = (ROOT, {**environ, "BENCH_DESIGN": "pipelined"})
    counted = {name: [] for name in sides}
    try:
        for _ in range(args.runs):
            for name, (checkout, side_environ) in sides.items():
                counted[name].append(per_request(checkout, side_environ, args.first, args.then))
                print(f"{name}: {counted[name][-1]} instructions/request", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(metrics, ignore_errors=True)
    print(json.dumps({"scenario": args.scenario, "requests": [args.first, args.then],
                      "instructions_per_request": {name: {"runs": runs, "median": statistics.median(runs)}
                                                   for name, runs in counted.items()}}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
