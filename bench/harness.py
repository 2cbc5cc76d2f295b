"""What the bench's modules share: its settings and var dir, the seeded clinic, a served process and how one
measure of it is taken and summarised."""

import contextlib
import datetime
import decimal
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from pyramid.paster import get_appsettings

from bench import load
from clinicrecords.tasks import prepared_request

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "clinicrecords_bench_http"


def bench_settings():
    settings = dict(get_appsettings(str(ROOT / "development.ini"), "main"))
    # A separate worker consumes the queue in production; nothing here needs the tasks run.
    settings.update({"database.name": DATABASE, "huey.backend": "memory", "huey.consumer_in_process": "false",
                     "ratelimit.live_per_minute": "100000000"})
    return settings


def bench_var():
    """The bench's var dir (`$CLINICRECORDS_BENCH_VAR`, else var/bench), made the process's var dir."""
    var = Path(os.environ.get("CLINICRECORDS_BENCH_VAR", ROOT / "var" / "bench")).resolve()
    var.mkdir(parents=True, exist_ok=True)
    os.environ["CLINICRECORDS_VAR"] = str(var)
    return var


@contextlib.contextmanager
def request_in_transaction(registry):
    """A request on `registry` whose block runs in one transaction (seeding the bench's databases)."""
    with prepared_request(registry) as request, request.tm:
        yield request


def seed(settings, allergies):
    """A connected clinic with one patient and `allergies` accepted allergies; returns what the load needs."""
    import webtest

    from clinicrecords import make_config
    from clinicrecords.access import services
    from clinicrecords.access.interfaces import ALL_PERMISSIONS
    from clinicrecords.clinics.services import CLINIC_SCHEMAS, create_clinic, open_clinic
    from clinicrecords.db import embedded, migrations
    from clinicrecords.patients.services import PatientService
    from clinicrecords.review.services import StaffReview
    from clinicrecords.sandbox import seed_sandbox
    from clinicrecords.settings import read, var_dir

    if not os.environ.get("DATABASE_URL"):
        embedded.drop_database(var_dir(read(settings)), DATABASE)
    app = make_config(settings).make_wsgi_app()
    registry = app.registry
    migrations.migrate_all(registry["db.engine"], CLINIC_SCHEMAS)
    with request_in_transaction(registry) as request:
        clinic_id = create_clinic(request.db, "Bench Clinic").id
        workspace = services.create_workspace(request.db, "Bench Workspace", verified=True, paid=True,
                                              terms_accepted=True, seed=lambda db, c: seed_sandbox(request, c))
        services.grant_connection(request.db, workspace.id, clinic_id, ALL_PERMISSIONS)
        key = services.create_key(request.db, registry.settings["secrets.key_pepper"], workspace_id=workspace.id,
                                  mode="live")[1]
    with request_in_transaction(registry) as request:
        open_clinic(request.db, clinic_id)
        patient_id = str(PatientService(request.db).create({"given_name": "Ada", "family_name": "Bench"}).id)
    client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    headers = {"Authorization": f"Bearer {key}"}
    submissions = []
    for n in range(allergies):
        body = {"patient_id": patient_id, "substance": {"text": f"Seed substance {n}"}, "clinical_status": "active",
                "criticality": "high", "reactions": [{"manifestation": ["hives"], "description": "Rash"}]}
        submissions.append(client.post_json(f"/v1/clinics/{clinic_id}/allergies", body, status=202, headers={
            **headers, "Idempotency-Key": str(uuid.uuid4())}).json["data"]["submission_id"])
    with request_in_transaction(registry) as request:
        clinic = open_clinic(request.db, clinic_id)
        review = StaffReview(request.db, registry, clinic)
        for submission_id in submissions:
            review.accept(uuid.UUID(submission_id))
    listed = client.get(f"/v1/clinics/{clinic_id}/allergies", params={"limit": 100}, headers=headers).json["data"]
    assert len(listed) == min(allergies, 100), len(listed)
    registry["db.engine"].dispose()
    return {"clinic_id": str(clinic_id), "key": key, "patient_id": patient_id, "allergy_id": listed[0]["id"]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def service_metrics(var, label):
    """A multiprocess directory of its own for the service's processes, and the environment that names it: the
    service writes its metrics as production runs it (docs/operations.md, Metrics)."""
    directory = tempfile.mkdtemp(prefix=f"metrics-{label}-", dir=var)
    return directory, {**os.environ, "PROMETHEUS_MULTIPROC_DIR": directory}


class Server:
    def __init__(self, kind, settings, var):
        self.kind, self.port = kind, free_port()
        self.log = var / f"bench-{kind}.log"
        self.metrics, environ = None, dict(os.environ)
        if kind != "reference" and not kind.startswith("design"):
            self.metrics, environ = service_metrics(var, kind)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.server", kind, str(self.port), json.dumps(settings), str(self.log)],
            cwd=ROOT, stdout=subprocess.PIPE, text=True, env=environ)
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the {kind} server did not start")
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the {kind} server does not listen")
            time.sleep(0.05)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def cpu_seconds(self):
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def rss_mb(self):
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return None

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        if self.metrics:
            shutil.rmtree(self.metrics, ignore_errors=True)


def measure(server, spec, seconds):
    before = server.cpu_seconds()
    result = load.run({**spec, "seconds": seconds})
    cpu = server.cpu_seconds() - before
    result["cpu_ms_per_request"] = cpu * 1000 / max(result["requests"], 1)
    return result


def _median(runs, field):
    return statistics.median(run[field] for run in runs)


def summarise(runs):
    return {field: round(_median(runs, field), 3) for field in ("rps", "p50_ms", "p99_ms", "cpu_ms_per_request")} | {
        "errors": sum(run["errors"] for run in runs), "requests": sum(run["requests"] for run in runs)}


def ratios_to(mine, ref):
    """Requests per second, server CPU per request and p99 of `mine` over `ref` (two `summarise` results)."""
    return {"rps": round(mine["rps"] / ref["rps"], 3),
            "cpu": round(mine["cpu_ms_per_request"] / ref["cpu_ms_per_request"], 3),
            "p99": round(mine["p99_ms"] / ref["p99_ms"], 3)}


def plain(value):
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, decimal.Decimal)):
        return str(value)
    return value
