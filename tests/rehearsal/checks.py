"""The rehearsal's checks, in order. Each returns a short detail for its line or raises Failed."""

import datetime
import json
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

import psycopg

from tests.common.otlp import OtlpReceiver
from tests.common.ports import free_port
from tests.rehearsal.client import call, sign_up, wait_until
from tests.rehearsal.receiver import Receiver
from tests.rehearsal.stack import MAIL_SENDER, PRODUCTION_INI, ROOT, Stack, _bin, required_secrets


def started_on_a_cluster(database_title):
    """The first checks of a rehearsal on a PostgreSQL cluster of its own (failover, backup): the stack started
    in docs/deployment.md's order, the database described by `database_title`."""
    return [
        ("secrets from the environment", "secrets"),
        (database_title, "database"),
        ("redis", "redis"),
        ("migrate through the multi-host URL", "migrate"),
        ("seed through the operator CLI", "seed"),
        ("two web processes", "web_processes"),
        ("worker", "worker"),
        ("nginx", "proxy"),
    ]


class Failed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failed(message)


def _connects(port, address):
    """Does anything answer on address:port?"""
    with socket.socket() as s:
        s.settimeout(2)
        return s.connect_ex((address, port)) == 0


class Rehearsal:
    """The stack, the parties the checks share (keys, the receiver) and the checks themselves."""

    def __init__(self, workdir):
        self.stack = Stack(workdir)
        self.receiver = Receiver()
        # Where the web processes and the worker export their spans (OTLP/HTTP), decoded as a collector would.
        self.traces = OtlpReceiver().start()
        self.stack.trace_env.update(OTEL_EXPORTER_OTLP_ENDPOINT=self.traces.url, OTEL_BSP_SCHEDULE_DELAY="500")
        self.run = uuid.uuid4().hex[:8]  # makes this run's imports unlike any earlier content

    def stop(self):
        """Every process the rehearsal started."""
        self.stack.stop()
        self.receiver.stop()
        self.traces.stop()

    # -- helpers --

    def api(self, method, path, key, body=None, port=None, **kw):
        return call(port or self.stack.port, method, path, key=key, body=body, **kw)

    def import_body(self, tag, rows=3, valid=True):
        data = [{"given_name": "Rehearsal", "family_name": f"{self.run}-{tag}-{n}", "sex": "female",
                 "external_id": f"{self.run}-{tag}-{n}", **({"birth_date": "1980-01-01"} if valid else {})}
                for n in range(rows)]
        return {"input_format": "json_array", "data": data}

    def start_import(self, tag, rows=3, valid=True):
        answer = self.api("POST", f"/v1/clinics/{self.clinic_id}/patient-imports", self.clinic_key,
                          self.import_body(tag, rows, valid), timeout=60)
        expect(answer.status in (201, 202), f"import {tag}: {answer.status} {answer.body[:300]!r}")
        return answer.json["data"]["id"]

    def import_status(self, import_id):
        answer = self.api("GET", f"/v1/clinics/{self.clinic_id}/patient-imports/{import_id}", self.clinic_key)
        return answer.json["data"]["status"] if answer.status == 200 else None

    def patients_named(self, prefix):
        """family_name -> number of patient rows, straight from the clinic's schema."""
        from clinicrecords.db.tenancy import schema_name

        schema = schema_name(uuid.UUID(self.clinic_id))
        with psycopg.connect(self.stack.database_url) as connection:
            rows = connection.execute(f'SELECT family_name, count(*) FROM "{schema}".patients '
                                      "WHERE family_name LIKE %s GROUP BY family_name", (prefix + "%",)).fetchall()
        return dict(rows)

    def finished_event_for(self, import_id):
        return next((event for event in self.receiver.events().values()
                     if event["type"] == "patient_import.finished" and event["data"]["id"] == import_id), None)

    # -- start-up --

    def secrets(self):
        return f"{', '.join(required_secrets())} set"

    def service_refuses_without_a_secret(self):
        dropped = required_secrets()[0]
        port = self.stack.web_ports[0]
        for command in ([_bin("pserve"), str(PRODUCTION_INI)], [_bin("clinicrecords-worker"), str(PRODUCTION_INI)]):
            done = subprocess.run(command, check=False, env=self.stack.env(PORT=str(port), **{dropped: None}), cwd=ROOT,
                                  capture_output=True, text=True, timeout=60)
            expect(done.returncode == 2 and dropped in done.stderr.strip().splitlines()[-1],
                   f"{command[0]} without {dropped}: exit {done.returncode}, {done.stderr[-300:]!r}")
        expect(not _connects(port, "127.0.0.1"), "something listens where the refused server would have")
        return f"pserve and the worker exit 2 naming {dropped}"

    def database(self):
        self.stack.prepare()
        self.stack.start_database()
        return "embedded PostgreSQL, fresh database, DATABASE_URL=postgresql://..."

    def redis(self):
        self.stack.redis.start()
        with self.stack.redis.client() as client:
            config = {**client.config_get("appendonly"), **client.config_get("bind")}
        expect(config == {"appendonly": "yes", "bind": "127.0.0.1"}, f"redis config {config}")
        return f"redis-server on 127.0.0.1:{self.stack.redis.port}, appendonly yes"

    def mail_server(self):
        self.stack.mail.start()
        return f"aiosmtpd on 127.0.0.1:{self.stack.mail.port}, CLINICRECORDS_SMTP_URL={self.stack.mail.url}"

    def migrate(self):
        first = self.stack.admin("migrate")
        again = self.stack.admin("migrate")
        expect(first["schemas_migrated"] >= 1 and again == {"schemas_migrated": 0}, f"{first} then {again}")
        return f"{first['schemas_migrated']} schema(s), then 0 on a second run"

    def seed(self):
        admin = self.stack.admin
        self.receiver.start()
        with ThreadPoolExecutor(4) as pool:  # each command is a process start: the independent ones together
            clinic = pool.submit(admin, "clinic", "create", "--name", "Rehearsal Clinic")
            workspace = pool.submit(admin, "workspace", "create", "--name", "Rehearsal", "--verified", "--paid",
                                    "--terms-accepted")
            self.clinic_id = clinic.result()["clinic_id"]
            clinic_key = pool.submit(admin, "key", "create", "--clinic", self.clinic_id)
            allow_listed = pool.submit(admin, "key", "create", "--clinic", self.clinic_id, "--ip-allow", "127.0.0.2/32")
            # The load of the last fault is faster than the live limit (600 a minute) allows.
            load_key = pool.submit(admin, "key", "create", "--clinic", self.clinic_id, "--rate-limit", "100000")
            test_key = pool.submit(admin, "key", "create", "--workspace", workspace.result()["workspace_id"],
                                   "--mode", "test")
            # production.ini refuses a plain-http loopback URL; the worker's ini (WORKER_OVERRIDES) allows it.
            endpoint = pool.submit(admin, "webhook", "add", "--clinic", self.clinic_id, "--url", self.receiver.url,
                                   "--types", "patient_import.finished", ini=self.stack.worker_ini)
            self.clinic_key, self.allow_listed_key = clinic_key.result()["key"], allow_listed.result()["key"]
            self.test_key, self.load_key = test_key.result()["key"], load_key.result()["key"]
            self.receiver.secret = endpoint.result()["secret"]
        return "clinic, 4 keys, webhook endpoint on " + self.receiver.url

    def web_processes(self):
        for port in self.stack.web_ports:
            self.stack.start_web(port)
        for port in self.stack.web_ports:
            expect(self.stack.web_ready(port), f"pserve on {port} did not answer /healthz; the end of "
                                               f"logs/pserve-{port}.log: {self.stack.web_log_tail(port)}")
            expect(not _connects(port, "127.0.0.2"), f"pserve on {port} listens beyond 127.0.0.1")
        return "pserve production.ini on 127.0.0.1:{} and :{}".format(*self.stack.web_ports)

    def worker(self):
        self.stack.start_worker()
        time.sleep(1)
        expect(self.stack.worker.poll() is None, "the worker exited: see logs/worker.log")
        return "clinicrecords-worker, 4 threads"

    def proxy(self):
        self.stack.nginx.start()
        ready = wait_until(lambda: call(self.stack.port, "GET", "/healthz", timeout=5).status == 200, 30)
        expect(ready, "nginx did not answer /healthz: see nginx/error.log")
        expect(not _connects(self.stack.port, "127.0.0.2"), "nginx listens beyond 127.0.0.1")
        return f"nginx on 127.0.0.1:{self.stack.port} in front of both"

    # -- end to end --

    def mail(self):
        """A sign-up through nginx, as a browser posts it: its verification email reaches the SMTP server."""
        email = f"signup-{self.run}@rehearsal.test"
        answer = sign_up(self.stack.port, email, "a rehearsal passphrase 2718")
        expect(answer.status == 303 and "/portal/signup?sent=" in answer.headers.get("location", ""),
               f"sign-up answered {answer.status} {answer.headers.get('location')!r} {answer.body[:300]!r}")
        message = wait_until(lambda: next((m for m in self.stack.mail.messages() if m["To"] == email), None), 60)
        expect(message is not None, f"the sign-up's email to {email} did not reach the SMTP server "
                                    "(see logs/worker.log)")
        text = message.get_body(preferencelist=("plain",)).get_content()
        portal = f"http://127.0.0.1:{self.stack.nginx.port}/portal"
        expect(message["From"] == MAIL_SENDER and message["Subject"] == "Verify your email address for Clinic Records",
               f"From {message['From']!r}, Subject {message['Subject']!r}")
        expect(f"{portal}/verify-email?token=" in text and message.get_body(preferencelist=("html",)) is not None,
               "the message has no plain-text verification link on the portal's public address, or no HTML part")
        return "a sign-up's verification email queued through the outbox, sent by the worker over SMTP, read back"

    def patient_import(self):
        import_id = self.start_import("import")
        status = wait_until(lambda: self.import_status(import_id) in ("succeeded", "failed")
                            and self.import_status(import_id), 60)
        expect(status == "succeeded", f"import {import_id} is {status}")
        written = self.patients_named(f"{self.run}-import-")
        expect(sorted(written.values()) == [1, 1, 1], f"patients written: {written}")
        self.first_import = import_id
        return "3 rows written by the worker, each once"

    def webhook(self):
        event = wait_until(lambda: self.finished_event_for(self.first_import), 60)
        expect(event, f"no verified patient_import.finished for {self.first_import} "
                      f"(rejected: {self.receiver.rejected})")
        expect(self.receiver.rejected == 0, f"{self.receiver.rejected} deliveries failed verification")
        return "patient_import.finished delivered by the worker, verified with standardwebhooks"

    def change_feed(self):
        seen, after = [], 0
        for _ in range(100):
            answer = self.api("GET", f"/v1/clinics/{self.clinic_id}/events?after_seq={after}&limit=1", self.clinic_key)
            expect(answer.status == 200, f"feed: {answer.status} {answer.body[:200]!r}")
            page = answer.json["events"]
            if not page:
                break
            seen.extend(page)
            after = answer.json["next_after"]
        seqs = [event["seq"] for event in seen]
        expect(seqs == sorted(set(seqs)), f"feed order {seqs}")
        expect(any(e["type"] == "patient_import.finished" and e["data"]["id"] == self.first_import for e in seen),
               "the import's event is not in the feed")
        return f"{len(seen)} event(s), one page at a time, in seq order"

    def rate_limit(self):
        second = datetime.datetime.now(datetime.UTC).second
        if second > 40:  # all 123 calls inside one minute window
            time.sleep(61 - second)
        before = self.stack.nginx.access_log.stat().st_size
        statuses = [self.api("GET", "/v1/me", self.test_key).status for _ in range(120)]
        expect(statuses == [200] * 120, f"first 120: {sorted(set(statuses))}")
        with self.stack.nginx.access_log.open() as log:
            log.seek(before)
            upstreams = {line.split()[-1] for line in log if "/v1/me" in line}
        expect(upstreams == {f"127.0.0.1:{p}" for p in self.stack.web_ports}, f"served by {upstreams}")
        through_nginx = self.api("GET", "/v1/me", self.test_key)
        direct = [self.api("GET", "/v1/me", self.test_key, port=p) for p in self.stack.web_ports]
        for answer in (through_nginx, *direct):
            expect(answer.status == 429 and answer.code == "rate_limited" and answer.headers.get("retry-after"),
                   f"after 120: {answer.status} {answer.body[:200]!r}")
        return "120 x 200 spread over both processes, then 429 through nginx and from each process"

    def ip_allow_list(self):
        def me(**kw):
            return self.api("GET", "/v1/me", self.allow_listed_key, **kw)

        allowed = me(source="127.0.0.2")
        expect(allowed.status == 200, f"from the allowed 127.0.0.2: {allowed.status}")
        refused = me(source="127.0.0.3")
        expect(refused.status == 403 and refused.code == "ip_not_allowed", f"from 127.0.0.3: {refused.status}")
        spoofed = me(source="127.0.0.3", headers={"X-Forwarded-For": "127.0.0.2"})
        expect(spoofed.code == "ip_not_allowed", f"127.0.0.3 claiming 127.0.0.2 through nginx: {spoofed.status}")
        bypass = me(source="127.0.0.3", headers={"X-Forwarded-For": "127.0.0.2"}, port=self.stack.web_ports[0])
        expect(bypass.code == "ip_not_allowed", f"127.0.0.3 claiming 127.0.0.2 to pserve directly: {bypass.status}")
        return "decided on nginx's X-Forwarded-For; a client's own header is ignored, through nginx or not"

    # -- faults --

    def worker_killed_mid_delivery(self):
        self.receiver.hold_seconds = 3.0
        import_ids = [self.start_import(f"kill-{n}", valid=False) for n in range(4)]
        in_flight = wait_until(lambda: self.receiver.in_flight > 0, 60, pause=0.05)
        expect(in_flight, "no delivery reached the receiver")
        self.stack.kill(self.stack.worker, signal.SIGKILL)
        self.receiver.hold_seconds = 0.0
        self.stack.start_worker()
        # The killed worker's claims run out (10 s) and the per-minute sweep queues them again.
        everything = wait_until(lambda: all(self.finished_event_for(i) for i in import_ids), 150)
        expect(everything, f"not every event arrived: {[i for i in import_ids if not self.finished_event_for(i)]}")
        delivered = wait_until(self._all_delivered, 150)
        expect(delivered, "deliveries still pending after the receiver had every event")
        copies = sum(self.receiver.count(self.finished_event_for(i)["id"]) for i in import_ids)
        return f"4 events, {copies} requests, {copies - 4} duplicate(s) dropped by webhook-id"

    def _all_delivered(self):
        with psycopg.connect(self.stack.database_url) as connection:
            pending = connection.execute("SELECT count(*) FROM control.webhook_deliveries "
                                         "WHERE status <> 'delivered'").fetchone()[0]
        return pending == 0

    def redis_restarted_with_work_queued(self):
        stack = self.stack
        stack.kill(stack.worker)  # nothing consumes: the work stays queued in Redis
        with ThreadPoolExecutor(4) as pool:  # each valid import waits its 10 s bound, then answers 202
            valid = list(pool.map(lambda n: self.start_import(f"queued-{n}"), range(3)))
        invalid = [self.start_import(f"review-{n}", valid=False) for n in range(3)]
        with stack.redis.client() as client:
            queued = client.llen("huey.redis.clinicrecords")
        expect(queued >= 6, f"{queued} task(s) queued in Redis, expected at least 6")
        stack.redis.stop()
        down = [self.api("GET", "/v1/me", self.clinic_key, port=p) for p in (stack.port, *stack.web_ports)]
        down.append(self.api("POST", f"/v1/clinics/{self.clinic_id}/patient-imports", self.clinic_key,
                             self.import_body("while-down")))
        expect(all(a.status == 503 and a.code == "service_unavailable" for a in down),
               f"while Redis is down: {[a.status for a in down]}")
        expect(self.patients_named(f"{self.run}-while-down-") == {}, "a refused import wrote patients")
        stack.redis.start()
        with stack.redis.client() as client:
            expect(client.llen("huey.redis.clinicrecords") == queued, "the queue lost tasks across the restart")
        back = [self.api("GET", "/v1/me", self.clinic_key, port=p).status for p in stack.web_ports]
        expect(back == [200, 200], f"after the restart: {back}")
        stack.start_worker()
        done = wait_until(lambda: all(self.import_status(i) == "succeeded" for i in valid), 90)
        expect(done, f"queued imports: {[self.import_status(i) for i in valid]}")
        written = self.patients_named(f"{self.run}-queued-")
        expect(len(written) == 9 and set(written.values()) == {1}, f"patients written: {written}")
        arrived = wait_until(lambda: all(self.finished_event_for(i) for i in valid + invalid), 90)
        expect(arrived, "not every queued delivery arrived")
        copies = {i: self.receiver.count(self.finished_event_for(i)["id"]) for i in valid + invalid}
        expect(set(copies.values()) == {1}, f"deliveries per event: {copies}")
        # A worker that was running through a restart reconnects by itself.
        stack.redis.restart()
        after = self.start_import("after-restart")
        expect(wait_until(lambda: self.import_status(after) == "succeeded", 90), "the worker did not carry on")
        return f"{queued} queued tasks kept, 503 while down, each ran once after; a running worker carries on"

    def web_process_killed_under_load(self):
        stack = self.stack
        victim = stack.web_ports[0]
        outcomes, retried = {}, set()
        lock, stop = threading.Lock(), threading.Event()

        def create(key):
            body = {"given_name": "Load", "family_name": key, "birth_date": "1990-05-05"}
            answer = None
            for _ in range(20):
                try:
                    answer = self.api("POST", f"/v1/clinics/{self.clinic_id}/patients", self.load_key, body,
                                      headers={"Idempotency-Key": key}, timeout=30)
                except OSError:
                    answer = None
                if answer is not None and answer.status not in (502, 503, 504):
                    break
                with lock:
                    retried.add(key)
                time.sleep(0.2)
            return answer

        def client(number):
            sent = 0
            while not stop.is_set():
                key = f"load-{self.run}-{number}-{sent}"
                outcomes[key] = create(key)
                sent += 1

        with ThreadPoolExecutor(8) as pool:
            clients = [pool.submit(client, n) for n in range(8)]
            time.sleep(2)
            stack.kill(stack.web[victim], signal.SIGKILL)
            time.sleep(3)
            stop.set()
            for done in clients:
                done.result()
        expect(stack.web[victim].poll() is not None, "the web process was not killed")
        statuses = {answer.status if answer else None for answer in outcomes.values()}
        expect(statuses == {201}, f"final answers {sorted(map(str, statuses))}")
        written = self.patients_named(f"load-{self.run}-")
        expect(len(written) == len(outcomes) and set(written.values()) == {1},
               f"{len(outcomes)} creates, {len(written)} patients, counts {set(written.values())}")
        # Each answer was stored with its effect: a replay returns the same patient and creates none.
        for key in sorted(retried) or list(outcomes)[:10]:
            replay = self.api("POST", f"/v1/clinics/{self.clinic_id}/patients", self.load_key,
                              {"given_name": "Load", "family_name": key, "birth_date": "1990-05-05"},
                              headers={"Idempotency-Key": key})
            expect(replay.headers.get("idempotent-replayed") == "true"
                   and replay.json["data"]["id"] == outcomes[key].json["data"]["id"],
                   f"replay of {key}: {replay.status}")
        expect(self.patients_named(f"load-{self.run}-") == written, "a replay wrote a patient")
        expect(wait_until(lambda: call(stack.port, "GET", "/healthz").status == 200, 10), "nginx stopped answering")
        return f"{len(outcomes)} creates, {len(retried)} retried after the kill, each patient exactly once"

    def metrics(self):
        """Debian's Prometheus scrapes one web process with the token: it reports the whole host (both web
        processes and the worker share PROMETHEUS_MULTIPROC_DIR), counting exactly what was sent."""
        token, (first, second) = self.stack.metrics_token, self.stack.web_ports
        expect(call(first, "GET", "/metrics").status == 404, "/metrics answered without the token")
        expect(call(first, "GET", "/metrics", key=self.clinic_key).status == 404, "/metrics answered an API key")
        # The worker writes into the same directory (its build info, its pool, its tasks' failures): files
        # named by its pid beside the web processes'.
        pid = self.stack.worker.pid
        expect(list(self.stack.metrics.glob(f"*_{pid}.db")),
               f"the worker (pid {pid}) wrote nothing into PROMETHEUS_MULTIPROC_DIR ({self.stack.metrics})")
        # Each process writes its answers' counts every second (decision 0173): the /healthz the check before
        # sent through nginx may not be in the other process's files yet.
        time.sleep(1.5)
        before = _healthz_total(first, token)
        for n in range(6):  # to both processes, directly
            expect(call((first, second)[n % 2], "GET", "/healthz").status == 200, "/healthz")
        folder = self.stack.workdir / "prometheus"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        (folder / "token").write_text(token)
        port = free_port()
        (folder / "prometheus.yml").write_text(json.dumps({
            "global": {"scrape_interval": "1s"},
            "rule_files": [str(ROOT / "deploy" / "prometheus" / "alerts.yml")],
            "scrape_configs": [{"job_name": "clinicrecords",
                                "authorization": {"credentials_file": str(folder / "token")},
                                "static_configs": [{"targets": [f"127.0.0.1:{first}"]}]}]}))
        log = (self.stack.logs / "prometheus.log").open("ab")
        process = subprocess.Popen(["prometheus", f"--config.file={folder / 'prometheus.yml'}",
                                    f"--storage.tsdb.path={folder / 'data'}", f"--web.listen-address=127.0.0.1:{port}"],
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

        def query(expression):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/query?"
                                            + urllib.parse.urlencode({"query": expression}), timeout=5) as answer:
                    return json.load(answer)["data"]["result"]
            except OSError:
                return []

        try:
            healthz = 'sum(clinicrecords_http_requests_total{route="/healthz",status="200"})'

            def counted():
                found = query(healthz)
                return found and float(found[0]["value"][1]) == before + 6

            expect(wait_until(counted, 60), f"Prometheus counted {query(healthz)} /healthz answers, expected "
                                            f"{before + 6:.0f} (see logs/prometheus.log)")
            imports = 'clinicrecords_http_requests_total{route="/v1/clinics/{clinic_id}/patient-imports",method="POST"}'
            for expression in (imports, "clinicrecords_queue_tasks", "clinicrecords_webhook_deliveries_pending",
                               "clinicrecords_build_info"):
                expect(query(expression), f"Prometheus has no {expression}")
        finally:
            self.stack.kill(process)
        return f"Prometheus on 127.0.0.1:{port} scraped :{first} with the token: {before + 6:.0f} /healthz answers " \
               "of both processes, the imports by route template, the queue and the outboxes; the worker's files " \
               "in the same directory"

    def traced(self):
        """The web processes and the worker export their spans over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT) to a
        receiver that decodes them (opentelemetry-proto): the first import's request is a trace named by its route
        template, with its statements, and the worker's task that wrote the rows is in that trace, below it (the
        trace context went through Redis with the task); no value the rehearsal sent is in any export."""
        route = "POST /v1/clinics/{clinic_id}/patient-imports"

        def linked():
            received = self.traces.spans()
            spans = [span for _, span in received]
            requests = {span.trace_id: span for span in spans if span.name == route}
            tasks = [span for span in spans if span.trace_id in requests and span.name.startswith("task ")
                     and span.name.endswith(".write_patient_import")]
            return (received, spans, requests, tasks) if tasks else None

        found = wait_until(linked, 30)
        if not found:
            names = sorted({span.name for _, span in self.traces.spans()})
            expect(found, f"no trace holds both {route!r} and the import's task: spans received {names[:40]}")
        received, spans, requests, tasks = found
        task = tasks[0]
        request = requests[task.trace_id]
        expect(task.parent_span_id == request.span_id, "the import's task is not a child of the request's span")
        below = [span for span in spans if span.parent_span_id == request.span_id and span.name != task.name]
        expect(any(span.name.split()[0] in ("SELECT", "INSERT", "BEGIN") for span in below),
               f"no statement below the request's span: {[span.name for span in below]}")
        services = {service for service, _ in received}
        expect(services == {"clinicrecords"}, f"service.name {services}")
        raw = self.traces.raw()
        leaked = [value[:12] + "…" for value in self.sent_values() if value and value.encode() in raw]
        expect(not leaked, f"the exported spans hold values the rehearsal sent: {leaked}")
        return (f"{len(spans)} spans received over OTLP/HTTP; {route} and the worker's "
                f"{task.name} in one trace; none with a key, email or name sent")

    def sent_values(self):
        """What no log line and no span may hold: the keys, the secrets, the sign-up's address and passphrase,
        the imported patients' names."""
        return [self.clinic_key, self.allow_listed_key, self.test_key, self.load_key, self.receiver.secret,
                self.stack.metrics_token, f"signup-{self.run}@rehearsal.test", "a rehearsal passphrase 2718",
                f"{self.run}-import-"]

    def logs_hold_no_secret(self):
        """Every line every process logged: JSON objects (production's formatter), none holding a key, an email,
        a password or a patient's name the rehearsal sent."""
        lines = [line for path in sorted(self.stack.logs.glob("*.log")) if path.name != "prometheus.log"
                 for line in path.read_text(errors="replace").splitlines()]
        text = "\n".join(lines)
        found = [value[:12] + "…" for value in self.sent_values() if value and value in text]
        expect(not found, f"the logs hold values the rehearsal sent: {found}")
        requests = []
        for line in lines:
            if line.startswith("{"):
                entry = json.loads(line)
                if entry.get("logger") == "clinicrecords.request":
                    requests.append(entry)
        expect(requests and all({"time", "request_id", "route", "status", "duration_ms"} <= set(r) for r in requests),
               "no JSON request lines with their fields in logs/pserve-*.log")
        return f"{len(lines)} lines searched, {len(requests)} JSON request lines, none with a key, email or name sent"

    def footprint(self):
        """What the run left in Redis and how large the processes grew: the numbers docs/deployment.md sizes from."""
        with self.stack.redis.client() as client:
            leftovers = client.keys("huey.results.*")
            memory = client.info("memory")
            keys = client.dbsize()
        expect(leftovers == [], f"task results kept in Redis: {leftovers}")
        survivors = [p for p in (*self.stack.web.values(), self.stack.worker) if p and p.poll() is None]
        rss = [_rss_mb(p.pid) for p in survivors]
        with psycopg.connect(self.stack.database_url) as connection:
            backends = connection.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                          ).fetchone()[0]
        return (f"Redis {keys} keys, {memory['used_memory_peak_human']} peak; web and worker RSS "
                f"{', '.join(f'{mb:.0f}' for mb in rss)} MB; {backends} PostgreSQL connections")


def _healthz_total(port, token):
    answer = call(port, "GET", "/metrics", headers={"Authorization": f"Bearer {token}"})
    expect(answer.status == 200, f"/metrics with the token answered {answer.status}")
    prefix = 'clinicrecords_http_requests_total{method="GET",route="/healthz",status="200"} '
    return next((float(line[len(prefix):]) for line in answer.body.decode().splitlines()
                 if line.startswith(prefix)), 0.0)


def _rss_mb(pid):
    """Resident memory of a process and its children (the worker and pserve are one process each)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


CHECKS = [
    ("secrets from the environment", "secrets"),
    ("database", "database"),
    ("redis", "redis"),
    ("SMTP server", "mail_server"),
    ("the service refuses to start without a secret", "service_refuses_without_a_secret"),
    ("migrate", "migrate"),
    ("seed through the operator CLI", "seed"),
    ("two web processes", "web_processes"),
    ("worker", "worker"),
    ("nginx", "proxy"),
    ("a sign-up's email sent by the worker over SMTP", "mail"),
    ("patient import written by the worker", "patient_import"),
    ("webhook delivered and verified", "webhook"),
    ("change feed through nginx", "change_feed"),
    ("rate limit shared by both processes", "rate_limit"),
    ("IP allow-list on the forwarded address", "ip_allow_list"),
    ("metrics: Prometheus scrapes the host", "metrics"),
    ("traces: the web processes and the worker export over OTLP", "traced"),
    ("fault: worker SIGKILLed mid-delivery", "worker_killed_mid_delivery"),
    ("fault: Redis restarted with imports and deliveries queued", "redis_restarted_with_work_queued"),
    ("fault: one web process SIGKILLed under load", "web_process_killed_under_load"),
    ("footprint", "footprint"),
    ("the logs hold no key, email or name sent", "logs_hold_no_secret"),
]
