"""`python -m bench.processes [--smoke]`: GET one allergy against one, two and (with 4 cores or more) four
waitress processes.

The deployment shape of docs/deployment.md for several web processes on one host: each process is waitress
with 8 threads on the embedded defaults, and the processes share one listening port through SO_REUSEPORT
(the kernel spreads new connections over them; no balancer process in between). The process counts are
measured in alternating rounds with the same wrk load (16 connections); CPU per request is the user+system
time of all server processes over the requests answered. While each run lasts, pg_stat_activity is sampled
for the database connections each process holds (by its own `database.application_name`), so the peak per
process is the pool size plus the overflow the load really used. Prints one JSON object on stdout.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.harness import ROOT, bench_settings, bench_var, free_port, measure, seed, service_metrics, summarise
from bench.server import WAITRESS

WAITRESS_THREADS = WAITRESS["threads"]

DATABASE = "clinicrecords_bench_processes"


class Group:
    """`count` service processes on one port (SO_REUSEPORT), measured as one server."""

    def __init__(self, count, settings, var, label="processes"):
        self.port = free_port()
        self.processes = []
        self.application_names = [f"bench-{label}-{count}-{n}" for n in range(count)]
        self.metrics, environ = service_metrics(var, f"{label}-{count}")  # one directory for the host, as production
        for n, application_name in enumerate(self.application_names):
            log = var / f"bench-{label}-{count}-{n}.log"
            own = {**settings, "database.application_name": application_name}
            process = subprocess.Popen([sys.executable, "-m", "bench.server", "app", str(self.port),
                                        json.dumps(own), str(log), "reuseport"],
                                       cwd=ROOT, stdout=subprocess.PIPE, text=True, env=environ)
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
        shutil.rmtree(self.metrics, ignore_errors=True)


class ConnectionPeaks:
    """Samples pg_stat_activity while a run lasts: the most connections each application name held at once."""

    def __init__(self, settings, interval=0.1):
        from sqlalchemy import create_engine
        from sqlalchemy.pool import NullPool

        from clinicrecords.db import database_url
        from clinicrecords.settings import read

        self.engine = create_engine(database_url(read(settings)), poolclass=NullPool)
        self.database = settings["database.name"]
        self.interval = interval
        self.peaks = {}
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self):
        self.peaks = {}
        self._stop.clear()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _sample(self):
        from sqlalchemy import text

        statement = text("SELECT application_name, count(*) FROM pg_stat_activity WHERE datname = :database "
                         "AND pid <> pg_backend_pid() GROUP BY application_name")
        with self.engine.connect() as connection:
            while not self._stop.is_set():
                for name, count in connection.execute(statement, {"database": self.database}):
                    self.peaks[name] = max(self.peaks.get(name, 0), count)
                connection.rollback()
                self._stop.wait(self.interval)


def process_counts(cores):
    return [1, 2, 4] if cores >= 4 else [1, 2]


def measure_group(group, spec, seconds, peaks):
    with peaks:
        result = measure(group, spec, seconds)
    held = [peaks.peaks.get(name, 0) for name in group.application_names]
    result["connections_per_process"] = held
    result["connections_peak_max"] = max(held)
    # The request log's writer (its own connection per process, one name for all) and anything else.
    result["other_connections"] = {name: count for name, count in peaks.peaks.items()
                                   if name not in group.application_names}
    return result


def summarise_group(runs):
    summary = summarise(runs)
    summary["connections_per_process_peak"] = max(run["connections_peak_max"] for run in runs)
    return summary


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.processes", description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="short runs; fails on errors only")
    parser.add_argument("--pairs", type=int, help="alternating rounds over the process counts (default 3)")
    parser.add_argument("--seconds", type=int, help="seconds of load per run (default 10)")
    args = parser.parse_args(argv)
    pairs = args.pairs or (1 if args.smoke else 3)
    seconds = args.seconds or (2 if args.smoke else 10)

    from clinicrecords.db import embedded
    from clinicrecords.settings import read, var_dir

    var = bench_var()
    settings = {**bench_settings(), "database.name": DATABASE, "clinicrecords.var": str(var)}
    if not os.environ.get("DATABASE_URL"):
        embedded.drop_database(var_dir(read(settings)), DATABASE)
    seeded = seed(settings, 1)
    path = f"/v1/clinics/{seeded['clinic_id']}/allergies/{seeded['allergy_id']}"
    counts = process_counts(os.cpu_count() or 1)
    groups = {}
    peaks = ConnectionPeaks(settings)
    try:
        for count in counts:
            groups[count] = Group(count, settings, var)
        specs = {count: {"url": group.url(path), "connections": 16,
                         "headers": {"Authorization": f"Bearer {seeded['key']}"}} for count, group in groups.items()}
        for count, group in groups.items():
            measure(group, specs[count], 1 if args.smoke else 3)  # warm-up
        runs = {count: [] for count in counts}
        for round_ in range(pairs):  # the order turns each round, so drift on a shared machine hits all alike
            for count in counts if round_ % 2 == 0 else reversed(counts):
                runs[count].append(measure_group(groups[count], specs[count], seconds, peaks))
    finally:
        for group in groups.values():
            group.stop()
        peaks.engine.dispose()
    summaries = {count: summarise_group(runs[count]) for count in counts}
    database = read(settings).database
    settings_used = {"pool_size": database.pool_size, "max_overflow": database.max_overflow}
    result = {"scenario": "get_one_allergy", "connections": 16, "pairs": pairs, "seconds_per_run": seconds,
              "process_counts": counts, "threads_per_process": WAITRESS_THREADS, "pool": settings_used,
              "by_processes": {str(count): summary for count, summary in summaries.items()},
              "rps_scaling": {str(count): round(summaries[count]["rps"] / summaries[1]["rps"], 3)
                              for count in counts},
              "cores": os.cpu_count(), "load_average": os.getloadavg(),
              "runs": {str(count): count_runs for count, count_runs in runs.items()}}
    print(json.dumps(result))
    return 1 if any(summary["errors"] for summary in summaries.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
