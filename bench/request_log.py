"""`python -m bench.request_log [--smoke] [--pairs 5] [--seconds 10]`: GET one allergy with the request log's
writer off (as before it existed) and on, in alternating pairs.

Two service processes (waitress, 8 threads, the embedded defaults) differ only in `request_log.enabled`. With
it off no sink is registered and the request-log tween runs exactly its old code; with it on every keyed
request is appended to the writer's buffer and written in batches by its thread. The order within each pair
alternates (off-on, on-off, ...) so a drifting machine favours neither. After the runs, the rows the "on"
process wrote are counted against the requests it answered. Prints one JSON object on stdout.

`--in-process N` measures instead this process's CPU time (all threads, the writer's included) per request
through two in-process apps, writer off and on, in alternating rounds of N requests; each "on" round ends
with the writer flushed, so its writes are counted. Less sensitive to a busy machine than requests/s.
"""

import argparse
import json
import os
import statistics
import sys
import time

from sqlalchemy import text

from bench.harness import bench_settings, bench_var, measure, seed, summarise
from bench.processes import Group

DATABASE = "clinicrecords_bench_request_log"


def _rows_written(settings):
    from clinicrecords.db import make_engine
    from clinicrecords.settings import read

    engine = make_engine(read(settings), pool_size=1)
    try:
        with engine.connect() as connection:
            return connection.scalar(text("SELECT count(*) FROM control.request_log"))
    finally:
        engine.dispose()


def in_process(settings, seeded, rounds, requests):
    import webtest

    from clinicrecords import make_config

    path = f"/v1/clinics/{seeded['clinic_id']}/allergies/{seeded['allergy_id']}"
    headers = {"Authorization": f"Bearer {seeded['key']}"}
    apps = {name: make_config({**settings, "request_log.enabled": name}).make_wsgi_app()
            for name in ("off", "on")}
    clients = {name: webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
               for name, app in apps.items()}
    writer = apps["on"].registry["request_log.writer"]
    cpu = {"off": [], "on": []}
    for client in clients.values():
        for _ in range(100):
            client.get(path, headers=headers)
    writer.flush()
    for n in range(rounds):
        for name in ("off", "on") if n % 2 == 0 else ("on", "off"):
            started = time.process_time()
            for _ in range(requests):
                clients[name].get(path, headers=headers)
            if name == "on":
                writer.flush()
            cpu[name].append(round((time.process_time() - started) * 1000 / requests, 4))
    off, on = statistics.median(cpu["off"]), statistics.median(cpu["on"])
    per_entry = writer_cost(writer, seeded, path)
    return {"writer_cpu_us_per_entry": per_entry, "writer_share_of_get_one": round(per_entry / 1000 / off, 4),
            "scenario": "get_one_allergy", "in_process_requests_per_round": requests, "rounds": rounds,
            "cpu_ms_per_request": {"writer_off": off, "writer_on": on}, "cpu_ratio": round(on / off, 3),
            "rounds_cpu_ms": cpu, "writer": {"written": writer.written, "dropped": writer.dropped,
                                             "lost": writer.lost}, "load_average": os.getloadavg()}


def writer_cost(writer, seeded, path, entries=20_000):
    """The writer's own CPU per entry, isolated: building the entry, appending it, and writing it (path
    cleaning, COPY) when flushed, in µs. Microbenchmark: not disturbed by the load around it."""
    import uuid

    from clinicrecords.api.request_log import KeyedRequest

    owner = uuid.uuid4()
    started = time.process_time()
    for n in range(0, entries, writer.batch):
        for _ in range(min(writer.batch, entries - n)):
            writer.append(KeyedRequest(time.time(), owner, "0123456789abcdef", "live", seeded["clinic_id"],
                                       "GET", path, 200, None, "req_0123456789abcdef01234567", 3.2))
        writer.flush()
    return round((time.process_time() - started) * 1_000_000 / entries, 2)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.request_log", description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="short runs; fails on errors only")
    parser.add_argument("--pairs", type=int, help="alternating (off, on) pairs (default 5)")
    parser.add_argument("--seconds", type=int, help="seconds of load per run (default 10)")
    parser.add_argument("--in-process", type=int, metavar="N", help="CPU per request in-process, rounds of N")
    parser.add_argument("--control", action="store_true",
                        help="both processes with the writer off: how much two identical ones differ")
    args = parser.parse_args(argv)
    pairs = args.pairs or (1 if args.smoke else 5)
    seconds = args.seconds or (2 if args.smoke else 10)

    var = bench_var()
    settings = {**bench_settings(), "database.name": DATABASE, "clinicrecords.var": str(var)}
    seeded = seed(settings, 1)
    if args.in_process:
        print(json.dumps(in_process(settings, seeded, pairs * 2, args.in_process)))
        return 0
    time.sleep(1)  # the seeding app's writer (in this process) writes its requests every 0.5 s
    seeded_rows = _rows_written(settings)
    path = f"/v1/clinics/{seeded['clinic_id']}/allergies/{seeded['allergy_id']}"
    on_setting = "false" if args.control else "true"
    servers = {"off": Group(1, {**settings, "request_log.enabled": "false"}, var, "request-log-off"),
               "on": Group(1, {**settings, "request_log.enabled": on_setting}, var, "request-log-on")}
    answered_on = 0
    try:
        spec = {"url": None, "connections": 16, "headers": {"Authorization": f"Bearer {seeded['key']}"}}
        specs = {name: {**spec, "url": server.url(path)} for name, server in servers.items()}
        runs = {"off": [], "on": []}
        for name, server in servers.items():
            answered_on += measure(server, specs[name], 1 if args.smoke else 3)["requests"] * (name == "on")
        for n in range(pairs):
            for name in ("off", "on") if n % 2 == 0 else ("on", "off"):
                run = measure(servers[name], specs[name], seconds)
                runs[name].append(run)
                answered_on += run["requests"] * (name == "on")
        time.sleep(2)  # the writer's last batch (every 0.5 s)
        written = _rows_written(settings) - seeded_rows
    finally:
        for server in servers.values():
            server.stop()
    off, on = summarise(runs["off"]), summarise(runs["on"])
    result = {"scenario": "get_one_allergy", "control": args.control, "connections": 16, "pairs": pairs,
              "seconds_per_run": seconds,
              "writer_off": off, "writer_on": on,
              "ratios": {"rps": round(on["rps"] / off["rps"], 3),
                         "p50": round(on["p50_ms"] / off["p50_ms"], 3),
                         "p99": round(on["p99_ms"] / off["p99_ms"], 3),
                         "cpu": round(on["cpu_ms_per_request"] / off["cpu_ms_per_request"], 3)},
              # Each pair's own ratio, then their median: drift between pairs cancels within a pair.
              "pair_ratios_median": {field: round(statistics.median(
                  on_run[field] / off_run[field] for on_run, off_run in zip(runs["on"], runs["off"])), 3)
                  for field in ("rps", "p50_ms", "p99_ms", "cpu_ms_per_request")},
              "rows_written": written, "requests_answered_with_writer_on": answered_on,
              "cores": os.cpu_count(), "load_average": os.getloadavg(), "runs": runs}
    print(json.dumps(result))
    return 1 if off["errors"] or on["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
