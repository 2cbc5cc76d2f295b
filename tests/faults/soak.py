"""Soak: mixed load (reads, writes, imports, feed reads, webhook deliveries) through the WSGI app on the
embedded PostgreSQL for a while; reports errors, p99 drift and process memory growth.

`scripts/soak [--duration SECONDS]` (default 600) runs it on its own database; exit 1 when a target is
missed (any error other than a deliberate 4xx, memory growth of 10 % or more after warm-up).
The suite runs a few seconds of it (tests/faults/test_soak.py).
"""

import argparse
import json
import sys
import time
import uuid

from webtest import TestApp

from clinicrecords.patients.imports.schemas import PatientImportCreate
from clinicrecords.patients.schemas import PatientCreate

WINDOWS = 10
WARM_UP = 0.2  # share of the run before memory is measured


def rss_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _p99(durations):
    ordered = sorted(durations)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0


class Load:
    def __init__(self, app, world):
        self.app = TestApp(app)
        self.clinic_id = world.clinic("Soak clinic")
        self.clinic_key = {"Authorization": f"Bearer {world.key(clinic_id=self.clinic_id)}"}
        workspace_id, _ = world.workspace()
        world.grant(workspace_id, self.clinic_id)
        self.live_key = {"Authorization": f"Bearer {world.key(workspace_id=workspace_id, mode='live')}"}
        world.webhook(clinic_id=self.clinic_id)  # events are recorded and a delivery is attempted per change
        self.base = f"/v1/clinics/{self.clinic_id}"
        self.patients = []
        self.step = 0

    def write(self):
        response = self.app.post_json(f"{self.base}/patients", PatientCreate.EXAMPLE,
                                      headers={**self.live_key, "Idempotency-Key": str(uuid.uuid4())}, status="*")
        if response.status_int == 201:
            self.patients.append(response.json["data"]["id"])
        return response

    def read(self):
        if self.patients and self.step % 2:
            return self.app.get(f"{self.base}/patients/{self.patients[-1]}", headers=self.live_key, status="*")
        return self.app.get(f"{self.base}/patients?limit=20", headers=self.live_key, status="*")

    def imports(self):
        body = json.loads(json.dumps(PatientImportCreate.EXAMPLE))
        for row in body["data"]:
            row["external_id"] = f"SOAK-{uuid.uuid4().hex[:12]}"
        return self.app.post_json(f"{self.base}/patient-imports", body,
                                  headers={**self.clinic_key, "Idempotency-Key": str(uuid.uuid4())}, status="*")

    def feed(self):
        return self.app.get(f"{self.base}/events?limit=50", headers=self.live_key, status="*")

    MIX = ("read", "read", "read", "write", "feed", "read", "write", "imports", "read", "feed")

    def next(self):
        name = self.MIX[self.step % len(self.MIX)]
        self.step += 1
        return name, getattr(self, name)()


def run(app, world, duration, out=None):
    load = Load(app, world)
    started = time.monotonic()
    windows = [[] for _ in range(WINDOWS)]
    errors, counts, baseline = [], {}, None
    while (elapsed := time.monotonic() - started) < duration:
        if baseline is None and elapsed >= duration * WARM_UP:
            baseline = rss_bytes()
        t0 = time.perf_counter()
        name, response = load.next()
        windows[min(WINDOWS - 1, int(elapsed / duration * WINDOWS))].append(time.perf_counter() - t0)
        counts[name] = counts.get(name, 0) + 1
        if response.status_int >= 400:
            errors.append({"operation": name, "status": response.status_int, "body": response.text[:300]})
    final = rss_bytes()
    p99s = [round(_p99(w) * 1000, 2) for w in windows if w]
    report = {
        "duration_s": duration,
        "requests": counts,
        "errors": len(errors),
        "first_errors": errors[:5],
        "p99_ms_per_window": p99s,
        "p99_drift": round(p99s[-1] / p99s[0], 2) if p99s and p99s[0] else None,
        "rss_after_warm_up": baseline,
        "rss_final": final,
        "memory_growth": round((final - baseline) / baseline, 4) if baseline else None,
    }
    if out is not None:
        out.write(json.dumps(report) + "\n")
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(prog="scripts/soak", description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=600.0, help="seconds (default 600)")
    parser.add_argument("--config", default="testing.ini")
    args = parser.parse_args(argv)

    from pyramid.paster import get_appsettings

    from clinicrecords import make_config
    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import embedded, migrations
    from clinicrecords.settings import read, var_dir
    from tests.common.world import World

    settings = dict(get_appsettings(args.config, "main"))
    settings["database.name"] = "clinicrecords_soak"
    embedded.drop_database(var_dir(read(settings)), settings["database.name"])
    app = make_config(settings).make_wsgi_app()
    migrations.migrate_all(app.registry["db.engine"], CLINIC_SCHEMAS, workers=2)
    report = run(app, World(app.registry), args.duration, out=sys.stdout)
    app.registry["db.engine"].dispose()
    failed = report["errors"] or (report["memory_growth"] or 0) >= 0.10
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
