"""`scripts/rehearse --failover`: Debian's PostgreSQL 15 as a primary and two synchronous standbys on loopback
(tests/common/postgres_cluster.py), reached through the multi-host DATABASE_URL; two web processes behind nginx
and the worker as in the production rehearsal. Under write load (patients, allergy sends, each with an
Idempotency-Key, and the webhook deliveries the sends' decisions owe) a standby is lost, then the primary is
SIGKILLed and the most advanced standby promoted; the checks then read the new primary. One line per check."""

import datetime
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import psycopg

from clinicrecords.db import embedded
from clinicrecords.settings import DatabaseSettings
from tests.common.postgres_cluster import BIN, Cluster
from tests.rehearsal.checks import Failed, Rehearsal, expect, started_on_a_cluster
from tests.rehearsal.client import call, wait_until

DATABASE = "clinicrecords_failover"
# Debian's PostgreSQL 15 server binaries (its package also starts a cluster of its own, left alone here).
PACKAGES = {str(BIN / "pg_ctl"): "postgresql-15"}
CLIENTS = 6
# The bound: the service answers 2xx again this soon after the promotion.
RECOVERY_SECONDS = 15
# production.ini's database.pool_timeout: no answer may take longer than a request waits for a connection,
# plus its statement timeout, while the database is gone.
LONGEST_ANSWER_SECONDS = 30
# With no standby, a write's COMMIT waits this long, then its refusal's audit entry as long again.
COMMIT_WAIT_SECONDS = DatabaseSettings.commit_wait_ms / 1000


class WriteLoad:
    """`CLIENTS` threads, each sending one logical write after another until `stop()`: a patient or an allergy
    send, each retried with its Idempotency-Key while it answers 502, 503 or 504 or the connection breaks
    (for at most 60 s). Every attempt is recorded: (kind, key, started, finished, status, problem code)."""

    def __init__(self, rehearsal):
        self.rehearsal = rehearsal
        self.attempts = []
        self.final = {}  # key -> (kind, the last answer)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.pool = ThreadPoolExecutor(CLIENTS)
        self.clients = []

    def start(self):
        self.clients = [self.pool.submit(self._client, n) for n in range(CLIENTS)]
        return self

    def stop(self):
        self.stopping.set()
        for client in self.clients:
            client.result(timeout=120)
        self.pool.shutdown()

    def answered_2xx_since(self, moment):
        with self.lock:
            return [a for a in self.attempts if a[2] >= moment and a[4] and 200 <= a[4] < 300]

    def _client(self, number):
        sent = 0
        while not self.stopping.is_set():
            kind = ("patient", "send")[sent % 2]
            key = f"fo-{self.rehearsal.run}-{number}-{sent}"
            self.final[key] = (kind, self._write(kind, key))
            sent += 1

    def _write(self, kind, key):
        rehearsal = self.rehearsal
        base = f"/v1/clinics/{rehearsal.clinic_id}"
        if kind == "patient":
            path, body = f"{base}/patients", {"given_name": "Failover", "family_name": key,
                                              "birth_date": "1990-05-05"}
        else:
            path, body = f"{base}/allergies", {"patient_id": rehearsal.patient_id, "substance": {"text": key},
                                               "client_reference": key}
        deadline = time.monotonic() + 60
        while True:
            started = time.monotonic()
            try:
                answer = call(rehearsal.stack.port, "POST", path, key=rehearsal.load_key, body=body,
                              headers={"Idempotency-Key": key}, timeout=LONGEST_ANSWER_SECONDS + 10)
            except OSError:
                answer = None
            status = answer.status if answer else None
            with self.lock:
                self.attempts.append((kind, key, started, time.monotonic(), status, answer and answer.code))
            if (status not in (None, 502, 503, 504)) or time.monotonic() > deadline:
                return answer
            time.sleep(0.1)


class FailoverRehearsal(Rehearsal):
    def __init__(self, workdir):
        super().__init__(workdir)
        self.cluster = Cluster(self.stack.workdir / "postgres")
        self.primary = None

    # -- start-up --

    def database(self):
        self.stack.prepare()
        self.cluster.create()
        self.primary = self.cluster.nodes[0]
        embedded.prepare_database(lambda name=None: self.primary.conninfo(name or "postgres"), DATABASE)
        states = self.cluster.wait_for_standbys(self.primary, 2)
        self.stack.database_url = self.cluster.url(DATABASE, embedded.APP_ROLE, connect_timeout=2)
        return (f"{self.primary.name} primary, standbys {', '.join(sorted(states))}; "
                f"synchronous_standby_names = '{self.primary.sql('SHOW synchronous_standby_names')[0]}'")

    def seed(self):
        admin = self.stack.admin
        self.receiver.start()
        self.clinic_id = admin("clinic", "create", "--name", "Failover Clinic")["clinic_id"]
        # The load is faster than the live limit (600 a minute) allows.
        created = admin("key", "create", "--clinic", self.clinic_id, "--rate-limit", "100000")
        self.load_key = created["key"]
        admin("auto-accept", "set", "--clinic", self.clinic_id, "--key", created["key_id"], "--kinds", "allergy",
              "--on")
        # production.ini refuses a plain-http loopback URL; the worker's ini (WORKER_OVERRIDES) allows it.
        endpoint = admin("webhook", "add", "--clinic", self.clinic_id, "--url", self.receiver.url,
                         "--types", "submission.decided", ini=self.stack.worker_ini)
        self.receiver.secret = endpoint["secret"]
        return "clinic, key, allergies auto-accepted, webhook endpoint for submission.decided on " + self.receiver.url

    def first_patient(self):
        answer = self.api("POST", f"/v1/clinics/{self.clinic_id}/patients", self.load_key,
                          {"given_name": "Failover", "family_name": f"{self.run}-first", "birth_date": "1980-01-01"},
                          headers={"Idempotency-Key": str(uuid.uuid4())})
        expect(answer.status == 201, f"first patient: {answer.status} {answer.body[:300]!r}")
        self.patient_id = answer.json["data"]["id"]
        return "the patient the sends are about"

    # -- faults --

    def standby_lost_under_load(self):
        load = WriteLoad(self).start()
        try:
            time.sleep(2)
            lost = self.cluster.nodes[2]
            lost.kill()
            killed_at = time.monotonic()
            time.sleep(4)
            written = load.answered_2xx_since(killed_at + 0.5)
        finally:
            load.stop()
        expect(len(written) >= CLIENTS, f"{len(written)} writes answered 2xx in the 3.5 s after a standby died")
        refused = [a[4] for a in load.attempts if not (a[4] and 200 <= a[4] < 300)]
        expect(not refused, f"answers other than 2xx while a standby was down: {refused[:5]}")
        lost.start()
        states = self.cluster.wait_for_standbys(self.primary, 2)
        return f"{len(written)} writes answered 2xx with {lost.name} dead; it rejoined: {states}"

    def primary_killed_under_load(self):
        self.load = load = WriteLoad(self).start()
        try:
            time.sleep(3)
            old = self.primary
            old.kill()
            self.killed_at = time.monotonic()
            standbys = [node for node in self.cluster.nodes if node is not old]
            new = self.cluster.most_advanced_standby(standbys)
            new.promote()
            promoted_at, self.promoted_wall = time.monotonic(), datetime.datetime.now(datetime.UTC)
            self.primary, self.old_primary = new, old
            # Nothing is done to the other standby: its primary_conninfo finds the new primary by itself.
            following = self.cluster.wait_for_standbys(new, 1, timeout=RECOVERY_SECONDS)
            back = wait_until(lambda: load.answered_2xx_since(promoted_at), RECOVERY_SECONDS + 15, pause=0.1)
            expect(back, f"no write answered 2xx within {RECOVERY_SECONDS + 15} s of the promotion")
            recovered = min(a[3] for a in back) - promoted_at
            time.sleep(3)
        finally:
            load.stop()
        statuses = [a[4] for a in load.attempts]
        expect(500 not in statuses, f"{statuses.count(500)} answers were 500")
        refused = [a for a in load.attempts if not (a[4] and 200 <= a[4] < 300)]
        unclean = [a[4:] for a in refused if a[4:] != (503, "service_unavailable")]
        expect(not unclean, f"answers in the gap other than 503 service_unavailable: {unclean[:5]}")
        slow = [a for a in load.attempts if a[3] - a[2] > LONGEST_ANSWER_SECONDS]
        expect(not slow, f"{len(slow)} answers took longer than {LONGEST_ANSWER_SECONDS} s")
        expect(recovered <= RECOVERY_SECONDS, f"first 2xx {recovered:.1f} s after the promotion")
        unanswered = [key for key, (_, answer) in load.final.items() if not answer or answer.status >= 300]
        expect(not unanswered, f"{len(unanswered)} writes never answered 2xx: {unanswered[:3]}")
        self.retried = {a[1] for a in refused}
        return (f"{old.name} SIGKILLed, {new.name} (the most advanced standby) promoted, {following} streaming "
                f"from it by themselves; {len(load.final)} writes, {len(refused)} answers 503 problem+json in the "
                f"gap, none slower than {max(a[3] - a[2] for a in load.attempts):.1f} s; "
                f"2xx again {recovered:.1f} s after the promotion")

    def retries_replay(self):
        """Each write that met a 503 was retried with its Idempotency-Key until 2xx; sent once more, it replays
        the stored answer and writes nothing."""
        base = f"/v1/clinics/{self.clinic_id}"
        keys = sorted(self.retried) or sorted(self.load.final)[:5]
        for key in keys:
            kind, first = self.load.final[key]
            path, body = ((f"{base}/patients", {"given_name": "Failover", "family_name": key,
                                                "birth_date": "1990-05-05"}) if kind == "patient" else
                          (f"{base}/allergies", {"patient_id": self.patient_id, "substance": {"text": key},
                                                 "client_reference": key}))
            replay = self.api("POST", path, self.load_key, body, headers={"Idempotency-Key": key})
            expect(replay.headers.get("idempotent-replayed") == "true" and replay.body == first.body,
                   f"replay of {key}: {replay.status} {replay.headers.get('idempotent-replayed')}")
        return f"{len(keys)} writes retried after a 503, each replayed with its stored answer"

    def acknowledged_writes_on_the_new_primary(self):
        schema = f"clinic_{uuid.UUID(self.clinic_id).hex}"
        with self.primary.connect(DATABASE) as connection:
            patients = dict(connection.execute(
                f'SELECT family_name, count(*) FROM "{schema}".patients WHERE family_name LIKE %s '
                "GROUP BY family_name", (f"fo-{self.run}-%",)).fetchall())
            sends = dict(connection.execute(
                f'SELECT client_reference, count(*) FROM "{schema}".submissions WHERE client_reference LIKE %s '
                "GROUP BY client_reference", (f"fo-{self.run}-%",)).fetchall())
        acknowledged = {key: kind for key, (kind, answer) in self.load.final.items() if answer and answer.status < 300}
        missing = [key for key, kind in acknowledged.items()
                   if (patients if kind == "patient" else sends).get(key) != 1]
        expect(not missing, f"{len(missing)} acknowledged writes not found once on {self.primary.name}: {missing[:3]}")
        return f"{len(acknowledged)} acknowledged writes, each found once on {self.primary.name}"

    def change_feed_seq(self):
        schema = f"clinic_{uuid.UUID(self.clinic_id).hex}"
        with self.primary.connect(DATABASE) as connection:
            seqs = [row[0] for row in connection.execute(f'SELECT seq FROM "{schema}".events ORDER BY seq')]
        expect(seqs == list(range(1, len(seqs) + 1)), f"seqs not 1..{len(seqs)}: {seqs[:5]}...")
        return f"seq 1..{len(seqs)}, none reused or skipped"

    def owed_events_arrive(self):
        with self.primary.connect(DATABASE) as connection:
            owed = {str(row[0]) for row in connection.execute(
                "SELECT event_id FROM control.webhook_deliveries WHERE clinic_id = %s", (self.clinic_id,))}
        arrived = wait_until(lambda: owed <= set(self.receiver.events()), 120, pause=0.5)
        expect(arrived, f"{len(owed - set(self.receiver.events()))} of {len(owed)} owed events never arrived")
        copies = sum(self.receiver.count(event_id) for event_id in owed)
        return f"{len(owed)} events owed, all arrived ({copies - len(owed)} duplicates dropped by webhook-id)"

    def request_log_goes_on(self):
        """The request-log writer's buffered inserts start on a fresh connection after the failover."""
        def logged():
            with self.primary.connect(DATABASE) as connection:
                return connection.execute("SELECT count(*) FROM control.request_log WHERE occurred_at > %s",
                                          (self.promoted_wall,)).fetchone()[0]
        count = wait_until(logged, 30, pause=0.5)
        expect(count, "no request logged after the promotion")
        return f"{count} requests logged on {self.primary.name} since the promotion"

    def old_primary_rewound(self):
        old = self.old_primary
        self.cluster.rewind(old, self.primary)
        old.start()
        expect(old.in_recovery(), f"{old.name} came back as a primary")
        try:
            old.sql("CREATE TABLE fenced (id int)", database=DATABASE)
            raise Failed(f"{old.name} accepted a write")
        except psycopg.errors.ReadOnlySqlTransaction:
            pass
        states = self.cluster.wait_for_standbys(self.primary, 2)
        answer = self.api("POST", f"/v1/clinics/{self.clinic_id}/patients", self.load_key,
                          {"given_name": "Failover", "family_name": f"{self.run}-after", "birth_date": "1980-01-01"},
                          headers={"Idempotency-Key": str(uuid.uuid4())})
        expect(answer.status == 201, f"a write after the rewind: {answer.status}")
        schema = f"clinic_{uuid.UUID(self.clinic_id).hex}"
        caught_up = wait_until(lambda: old.sql(f'SELECT count(*) FROM "{schema}".patients WHERE family_name = %s',
                                               (f"{self.run}-after",), database=DATABASE)[0], 30)
        expect(caught_up, f"{old.name} does not replay what {self.primary.name} writes")
        again = self.stack.admin("migrate")
        expect(again == {"schemas_migrated": 0}, f"migrate after the failover: {again}")
        return (f"pg_rewind made {old.name} a standby of {self.primary.name} ({states}), read-only, replaying "
                f"the new timeline; the service URL still lists it first, writes and migrate go to {self.primary.name}")

    def every_standby_lost(self):
        """No standby left to confirm a commit: a write answers 503 within database.commit_wait_ms instead of
        waiting for one (so does a read of records, whose audit entry is a write), /healthz stays 200; a
        standby back, the write's retry replays its stored answer."""
        standbys = [node for node in self.cluster.nodes if node is not self.primary]
        for node in standbys:
            node.kill()
        key = f"fo-{self.run}-alone"
        body = {"given_name": "Failover", "family_name": key, "birth_date": "1980-01-01"}

        def create():
            return self.api("POST", f"/v1/clinics/{self.clinic_id}/patients", self.load_key, body,
                            headers={"Idempotency-Key": key}, timeout=LONGEST_ANSWER_SECONDS + 10)
        started = time.monotonic()
        refused = create()
        took = time.monotonic() - started
        expect(refused.status == 503 and refused.code == "service_unavailable", f"alone: {refused.status}")
        expect(took < 2 * COMMIT_WAIT_SECONDS + 3, f"the refused write took {took:.1f} s")
        health = call(self.stack.port, "GET", "/healthz")
        expect(health.status == 200, f"/healthz with no standby: {health.status}")
        for node in standbys:
            node.start()
        self.cluster.wait_for_standbys(self.primary, 2)
        retried = wait_until(lambda: (answer := create()).status == 201 and answer, RECOVERY_SECONDS)
        replayed = retried and retried.headers.get("idempotent-replayed")
        expect(replayed == "true", f"the retry: {retried and retried.status}, replayed {replayed}")
        return (f"a write answered 503 after {took:.1f} s (committed on {self.primary.name} alone), /healthz 200; "
                "the standbys back, its retry replays it")

    def stop(self):
        super().stop()
        self.cluster.stop()


CHECKS = [
    *started_on_a_cluster("PostgreSQL primary and two synchronous standbys"),
    ("a first write", "first_patient"),
    ("fault: a standby SIGKILLed under load, writes go on", "standby_lost_under_load"),
    ("fault: the primary SIGKILLed under load, a standby promoted", "primary_killed_under_load"),
    ("every write answered 2xx is on the new primary", "acknowledged_writes_on_the_new_primary"),
    ("idempotent retries of the refused writes", "retries_replay"),
    ("change feed seq", "change_feed_seq"),
    ("every event owed to an endpoint arrives", "owed_events_arrive"),
    ("request log written across the failover", "request_log_goes_on"),
    ("the old primary rewound into a standby", "old_primary_rewound"),
    ("fault: every standby lost, writes answer 503 in time, then go on", "every_standby_lost"),
]
