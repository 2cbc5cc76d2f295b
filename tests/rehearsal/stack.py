"""The production stack of docs/deployment.md on one machine, every part on loopback: the embedded PostgreSQL
as DATABASE_URL, Redis, an SMTP server (CLINICRECORDS_SMTP_URL), `clinicrecords-admin production.ini migrate`,
two `pserve production.ini`, one `clinicrecords-worker`, nginx in front. Every process it starts, it stops."""

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from tests.common.ports import free_port
from tests.common.redis_server import RedisServer
from tests.rehearsal.client import call, wait_until
from tests.rehearsal.mail_server import MailServer
from tests.rehearsal.nginx import Nginx

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_INI = ROOT / "production.ini"
DATABASE = "clinicrecords_rehearsal"
# What the rehearsal provides itself; every other `env:` setting of production.ini is a secret it is given.
PROVIDED = ("DATABASE_URL", "REDIS_URL", "CLINICRECORDS_BASE_URL", "CLINICRECORDS_SMTP_URL",
            "CLINICRECORDS_MAIL_SENDER", "CLINICRECORDS_EXPORTS_PATH", "CLINICRECORDS_SECURITY_EVENTS_PATH")
MAIL_SENDER = "Clinic Records <no-reply@rehearsal.test>"

# The worker's only departures from production.ini: the receiver is plain http on loopback, and a killed
# worker's claim runs out in 10 s rather than 60 s so the rehearsal need not wait as long.
WORKER_OVERRIDES = {
    "webhooks.allow_private_addresses": "true",
    "webhooks.require_https": "false",
    "webhooks.claim_seconds": "10",
    "webhooks.sweep_grace_seconds": "10",
}


def required_secrets(ini=PRODUCTION_INI):
    names = re.findall(r"^[^#\n]*=\s*env:([A-Z0-9_]+)", ini.read_text(), flags=re.MULTILINE)
    return sorted({name for name in names if name not in PROVIDED})


def missing_secrets(environ=os.environ):
    return [name for name in required_secrets() if not environ.get(name)]


def ini_with(overrides, path, ini=PRODUCTION_INI):
    """production.ini with the given settings of [app:main] replaced or added, written to `path`."""
    text = ini.read_text()
    for name, value in overrides.items():
        line = f"{name} = {value}"
        text, replaced = re.subn(rf"^{re.escape(name)} =.*$", line, text, flags=re.MULTILINE)
        if not replaced:
            text = text.replace("[server:main]", f"{line}\n\n[server:main]", 1)
    path.write_text(text)
    return path


def _bin(name):
    return str(Path(sys.executable).with_name(name))


class Stack:
    def __init__(self, workdir):
        self.workdir = Path(workdir)
        self.logs = self.workdir / "logs"
        self.redis = RedisServer(self.workdir / "redis", maxmemory="256mb")
        self.mail = MailServer(self.workdir / "mail")
        self.web_ports = [free_port(), free_port()]
        self.web = {}
        self.worker = None
        self.nginx = Nginx(self.workdir / "nginx", free_port(), self.web_ports)
        self.database_url = None
        self.worker_ini = None
        # Off the database's disk in production; here beside the rehearsal's other files.
        self.security_events = self.workdir / "security-events.jsonl"
        # prometheus_client's multiprocess directory, shared by both web processes and the worker.
        self.metrics = self.workdir / "metrics"
        self.metrics_token = secrets.token_urlsafe(24)
        # The OTEL_* variables of the web processes and the worker (the rehearsal's OTLP receiver): not the
        # operator commands', which answer no request and run no task.
        self.trace_env = {}

    @property
    def port(self):
        """nginx: where clients call."""
        return self.nginx.port

    def env(self, **changes):
        self.metrics.mkdir(parents=True, exist_ok=True)  # every rehearsal's processes write there
        env = dict(os.environ, DATABASE_URL=self.database_url, REDIS_URL=self.redis.url, HOST="127.0.0.1",
                   CLINICRECORDS_BASE_URL=f"http://127.0.0.1:{self.nginx.port}",
                   CLINICRECORDS_SMTP_URL=self.mail.url, CLINICRECORDS_MAIL_SENDER=MAIL_SENDER,
                   CLINICRECORDS_EXPORTS_PATH=str(self.workdir / "exports"),
                   CLINICRECORDS_SECURITY_EVENTS_PATH=str(self.security_events),
                   PROMETHEUS_MULTIPROC_DIR=str(self.metrics), CLINICRECORDS_METRICS_TOKEN=self.metrics_token)
        env.pop("PORT", None)
        env.update(changes)
        return {name: value for name, value in env.items() if value is not None}

    # -- the parts, in the order docs/deployment.md starts them --

    def prepare(self):
        for part in ("redis", "nginx", "logs", "metrics"):
            shutil.rmtree(self.workdir / part, ignore_errors=True)
        self.security_events.unlink(missing_ok=True)
        self.logs.mkdir(parents=True)
        self.metrics.mkdir(parents=True)
        self.worker_ini = ini_with(WORKER_OVERRIDES, self.workdir / "worker.ini")

    def start_database(self):
        """The embedded PostgreSQL (kept alive by this process), a fresh database, as a postgresql:// URL."""
        from clinicrecords.db import embedded

        embedded.drop_database(self.workdir, DATABASE)
        url = embedded.database_url(self.workdir, DATABASE)
        self.database_url = url.replace("postgresql+psycopg://", "postgresql://", 1)
        return self.database_url

    def admin(self, *args, ini=PRODUCTION_INI):
        """`clinicrecords-admin INI ARGS`: its one JSON object, or RuntimeError with its stderr."""
        done = subprocess.run([_bin("clinicrecords-admin"), str(ini), *args], check=False, env=self.env(), cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"clinicrecords-admin {' '.join(args)} exited {done.returncode}: {done.stderr[-800:]}")
        return json.loads(done.stdout)

    def start_web(self, port):
        log = (self.logs / f"pserve-{port}.log").open("ab")
        self.web[port] = subprocess.Popen([_bin("pserve"), str(PRODUCTION_INI)],
                                          env=self.env(PORT=str(port), **self.trace_env), cwd=ROOT, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True)
        return self.web[port]

    def web_ready(self, port, timeout=90):
        """True once pserve on `port` answers /healthz with 200; False as soon as it has exited."""
        process = self.web[port]

        def seen():
            if process.poll() is not None:
                return "exited"
            return "answered" if call(port, "GET", "/healthz", timeout=5).status == 200 else None

        return wait_until(seen, timeout) == "answered"

    def web_log_tail(self, port, lines=6):
        """pserve's last lines on `port`, for a failure's message: CI prints the message, not the log."""
        written = (self.logs / f"pserve-{port}.log").read_text(errors="replace").strip().splitlines()
        return " | ".join(written[-lines:]) or "(nothing written)"

    def start_worker(self):
        log = (self.logs / "worker.log").open("ab")
        self.worker = subprocess.Popen([_bin("clinicrecords-worker"), str(self.worker_ini), "--workers", "4"],
                                       env=self.env(**self.trace_env), cwd=ROOT, stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        return self.worker

    def kill(self, process, sig=signal.SIGTERM, timeout=30):
        """Signal a process this stack started (its whole session); SIGKILL if it outlives `timeout`."""
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, sig)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)

    def stop(self):
        """Everything, the proxy first and the stores last."""
        self.nginx.stop()
        for process in self.web.values():
            self.kill(process)
        self.kill(self.worker)
        self.kill(self.mail.process)
        self.redis.stop()
