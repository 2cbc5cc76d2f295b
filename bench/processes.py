"""`python -m bench.processes [--smoke]`: GET one allergy against one and two waitress processes.

The deployment shape of docs/deployment.md for several web processes on one host: each process is waitress
with 8 threads on the embedded defaults, and the processes share one listening port through SO_REUSEPORT
(the kernel spreads new connections over them; no balancer process in between). One process and two
processes are measured in alternating pairs with the same wrk load (16 connections); CPU per request is the
user+system time of all server processes over the requests answered. Prints one JSON object on stdout.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.__main__ import ROOT, _free_port, bench_settings, bench_var, measure, seed, summarise

DATABASE = "clinicrecords_bench_processes"


class Group:
    """`count` service processes on one port (SO_REUSEPORT), measured as one server."""

    def __init__(self, count, settings, var, label="processes"):
        self.port = _free_port()
        self.processes = []
        for n in range(count):
            log = var / f"bench-{label}-{count}-{n}.log"
            process = subprocess.Popen([sys.executable, "-m", "bench.server", "app", str(self.port),
                                        json.dumps(settings), str(log), "reuseport"],
                                       cwd=ROOT, stdout=subprocess.PIPE, text=True)
            self.processes.append(process)
            if process.stdout.readline().strip() != "ready":
                raise RuntimeError("a service process did not start")
        self._wait()

    def _wait(self):
        import contextlib
        import socket

        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the service processes do not listen")
            time.sleep(0.05)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def cpu_seconds(self):
        total = 0.0
        for process in self.processes:
            fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return total

    def stop(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.processes", description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="short runs; fails on errors only")
    parser.add_argument("--pairs", type=int, help="alternating (one process, two processes) pairs (default 3)")
    parser.add_argument("--seconds", type=int, help="seconds of load per run (default 10)")
    args = parser.parse_args(argv)
    pairs = args.pairs or (1 if args.smoke else 3)
    seconds = args.seconds or (2 if args.smoke else 10)

    from clinicrecords.db import embedded
    from clinicrecords.settings import var_dir

    var = bench_var()
    settings = {**bench_settings(), "database.name": DATABASE, "clinicrecords.var": str(var)}
    if not os.environ.get("DATABASE_URL"):
        embedded.drop_database(var_dir(settings), DATABASE)
    seeded = seed(settings, 1)
    path = f"/v1/clinics/{seeded['clinic_id']}/allergies/{seeded['allergy_id']}"
    groups = {"one": Group(1, settings, var), "two": Group(2, settings, var)}
    try:
        specs = {name: {"url": group.url(path), "connections": 16,
                        "headers": {"Authorization": f"Bearer {seeded['key']}"}} for name, group in groups.items()}
        for name, group in groups.items():
            measure(group, specs[name], 1 if args.smoke else 3)  # warm-up
        runs = {"one": [], "two": []}
        for _ in range(pairs):
            for name, group in groups.items():
                runs[name].append(measure(group, specs[name], seconds))
    finally:
        for group in groups.values():
            group.stop()
    one, two = summarise(runs["one"]), summarise(runs["two"])
    result = {"scenario": "get_one_allergy", "connections": 16, "pairs": pairs, "seconds_per_run": seconds,
              "one_process": one, "two_processes": two, "rps_scaling": round(two["rps"] / one["rps"], 3),
              "cores": os.cpu_count(), "load_average": os.getloadavg(), "runs": runs}
    print(json.dumps(result))
    return 1 if one["errors"] or two["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
