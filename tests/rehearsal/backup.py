"""`scripts/rehearse --backup`: backups and point-in-time recovery for real (docs/operations.md). Debian's
PostgreSQL 15 as a primary and a synchronous standby (tests/common/postgres_cluster.py), WAL archived by
Debian's pgBackRest into a repository on another path (tests/common/pgbackrest.py), the backups copied from
the standby; the production stack in front (two web processes behind nginx, the worker).

Several clinics are written under load, each write with an Idempotency-Key; a full backup, more writes, a
differential one; the writers paused, T noted, resumed; then an accident (one clinic's patients destroyed by
SQL while another clinic goes on writing; a key revoked after T). The whole database is restored to T in a
fresh data folder and read: every write acknowledged before T is there, none acknowledged after; then
`database restored` moves every clinic's feed past any seq issued and revokes the key again. Last, the clinic
the accident hit is restored alone from that copy (`clinic restore`) while the service runs, the other clinic
writes on and its own key reads (answered 200, or 503 with Retry-After while the restore holds it): its writes of
T back, none after, the other clinic's writes intact, its feed and audit complete. One
line per check, with the figures (backup size and time, restore time, the archive's lag, the clinic's restore)."""

import datetime
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor


from clinicrecords.db import embedded
from clinicrecords.db.tenancy import schema_name
from clinicrecords.observability.tasks import report_backup
from tests.common.pgbackrest import PGBACKREST, Repository, restored_node
from tests.common.postgres_cluster import BIN, Cluster, run_as_owner
from tests.rehearsal.checks import Failed, Rehearsal, expect, started_on_a_cluster
from tests.rehearsal.client import call

DATABASE = "clinicrecords_backup"
PACKAGES = {str(BIN / "pg_ctl"): "postgresql-15", PGBACKREST: "pgbackrest"}
CLINICS = 3
# One writer per clinic: enough to write across every step; more only slowed the backups on a shared machine.
CLIENTS_PER_CLINIC = 1
# production.ini's bound on how long a request may wait, with room: a write answering later is a failure.
LONGEST_ANSWER_SECONDS = 40
# The rehearsal's archive_timeout: a quiet primary still closes a WAL segment this often (the RPO's bound).
ARCHIVE_TIMEOUT_SECONDS = 10


class Writes:
    """Clients writing to every clinic until `stop()`: a patient, then an allergy send, each with its own
    Idempotency-Key (retried with it on 502/503/504). `pause()` returns once no write is in flight; every
    answered write is kept as (clinic, kind, key, answered at, status)."""

    def __init__(self, rehearsal, clinics=None, tag=""):
        self.rehearsal = rehearsal
        self.writing = clinics or rehearsal.clinics
        self.tag = tag  # in every Idempotency-Key (and record) it writes
        self.answered = []
        self.lock = threading.Lock()
        self.running = threading.Event()
        self.running.set()
        self.stopping = threading.Event()
        self.idle = threading.Semaphore(0)
        self.clients = []
        self.pool = ThreadPoolExecutor(len(self.writing) * CLIENTS_PER_CLINIC)

    def start(self):
        self.clients = [self.pool.submit(self._client, clinic, number)
                        for clinic in self.writing for number in range(CLIENTS_PER_CLINIC)]
        return self

    def pause(self):
        self.running.clear()
        for _ in self.clients:
            expect(self.idle.acquire(timeout=LONGEST_ANSWER_SECONDS * 2), "a writer did not pause")

    def resume(self):
        self.running.set()

    def stop(self):
        self.stopping.set()
        self.running.set()
        for client in self.clients:
            client.result(timeout=LONGEST_ANSWER_SECONDS * 2)
        self.pool.shutdown()

    def keys(self, clinic=None, kind=None, answered_before=None, answered_after=None):
        with self.lock:
            return {w[2] for w in self.answered
                    if (clinic is None or w[0] == clinic) and (kind is None or w[1] == kind)
                    and (answered_before is None or w[3] < answered_before)
                    and (answered_after is None or w[3] > answered_after)}

    def _client(self, clinic, number):
        sent = 0
        while not self.stopping.is_set():
            if not self.running.is_set():
                self.idle.release()
                self.running.wait()
                if self.stopping.is_set():
                    return
            kind = ("patient", "send")[sent % 2]
            key = f"bk-{self.rehearsal.run}-{clinic.name}-{number}{self.tag}-{sent}"
            answer = self._write(clinic, kind, key)
            expect(answer is not None and answer.status in (201, 202),
                   f"{kind} {key}: {answer and answer.status} {answer and answer.body[:200]!r}")
            with self.lock:
                self.answered.append((clinic.name, kind, key, time.monotonic(), answer.status))
            sent += 1

    def _write(self, clinic, kind, key):
        base = f"/v1/clinics/{clinic.id}"
        if kind == "patient":
            path, body = f"{base}/patients", {"given_name": "Backup", "family_name": key, "birth_date": "1990-05-05"}
        else:
            path, body = f"{base}/allergies", {"patient_id": clinic.patient_id, "substance": {"text": key},
                                               "client_reference": key}
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = call(self.rehearsal.stack.port, "POST", path, key=clinic.key, body=body,
                              headers={"Idempotency-Key": key}, timeout=LONGEST_ANSWER_SECONDS)
            except OSError:
                answer = None
            if (answer is not None and answer.status not in (502, 503, 504)) or time.monotonic() > deadline:
                return answer
            time.sleep(0.1)


class Reads:
    """One client reading a clinic's patients until `stop()`: what its key is answered while the clinic is being
    restored (200 before and after, 503 with Retry-After while the restore holds the clinic's lock)."""

    def __init__(self, rehearsal, clinic):
        self.rehearsal, self.clinic = rehearsal, clinic
        self.answers = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        self.thread.join(LONGEST_ANSWER_SECONDS * 2)

    def _read(self):
        while not self.stopping.is_set():
            try:
                answer = call(self.rehearsal.stack.port, "GET", f"/v1/clinics/{self.clinic.id}/patients",
                              key=self.clinic.key, timeout=LONGEST_ANSWER_SECONDS)
                self.answers.append((answer.status, answer.headers.get("retry-after"), answer.code))
            except OSError as error:
                self.answers.append((None, None, str(error)))
            time.sleep(0.1)


class Clinic:
    def __init__(self, name, clinic_id, key, key_id):
        self.name, self.id, self.key, self.key_id = name, clinic_id, key, key_id
        self.patient_id = None

    @property
    def schema(self):
        return schema_name(uuid.UUID(self.id))


class BackupRehearsal(Rehearsal):
    def __init__(self, workdir):
        super().__init__(workdir)
        self.repository = Repository(self.stack.workdir / "pgbackrest")
        self.cluster = Cluster(self.stack.workdir / "postgres", names=("pg_a", "pg_b"), sockets=True,
                               settings=self.repository.archive_settings(f"{ARCHIVE_TIMEOUT_SECONDS}s"))
        self.primary, self.standby = self.cluster.nodes
        self.copy = restored_node(self.cluster, "pg_restored")
        self.clinics = []
        self.writes = None

    def figures(self, backup):
        size, stored = backup["info"]["size"], backup["info"]["repository"]["delta"]
        return f"{size / 2**20:.1f} MiB, {stored / 2**20:.1f} MiB in the repository"

    # -- start-up --

    def database(self):
        self.stack.prepare()
        self.repository.write_config(self.primary, [self.standby])
        self.cluster.create()
        embedded.prepare_database(lambda name=None: self.primary.conninfo(name or "postgres"), DATABASE)
        self.cluster.wait_for_standbys(self.primary, 1)
        self.repository.create_stanza()
        # Segments closed before the stanza existed were refused (and pushed on a later attempt).
        self.failed_before = self.primary.sql("SELECT failed_count FROM pg_stat_archiver")[0]
        self.stack.database_url = self.cluster.url(DATABASE, embedded.APP_ROLE, connect_timeout=2)
        archiving = self.primary.sql("SHOW archive_command")[0]
        return (f"{self.primary.name} primary, {self.standby.name} synchronous standby; archive_command = "
                f"'{archiving}'; stanza created and checked, repository {self.repository.path}")

    def seed(self):
        admin = self.stack.admin
        names = "abc"[:CLINICS]
        # Each command is a process start (most of a command's time): the independent ones together.
        with ThreadPoolExecutor(2 * CLINICS) as pool:
            created = [pool.submit(admin, "clinic", "create", "--name", f"Backup Clinic {name.upper()}")
                       for name in names]
            clinic_ids = [clinic.result()["clinic_id"] for clinic in created]
            keys = [pool.submit(admin, "key", "create", "--clinic", clinic_id, "--rate-limit", "100000")
                    for clinic_id in clinic_ids]
            # Events are recorded while the clinic has an endpoint: its feed's counter then moves. Nothing
            # listens there (deliveries are not what is rehearsed).
            endpoints = [pool.submit(admin, "webhook", "add", "--clinic", clinic_id, "--url",
                                     "http://127.0.0.1:9/hook", "--types", "submission.decided",
                                     ini=self.stack.worker_ini) for clinic_id in clinic_ids]
            for name, clinic_id, key in zip(names, clinic_ids, keys, strict=True):
                self.clinics.append(Clinic(name, clinic_id, key.result()["key"], key.result()["key_id"]))
            # Accepted sends are decided: each a submission.decided event, so the feeds' counters move.
            accepting = [pool.submit(admin, "auto-accept", "set", "--clinic", clinic.id, "--key", clinic.key_id,
                                     "--kinds", "allergy", "--on") for clinic in self.clinics]
            for done in (*endpoints, *accepting):
                done.result()
        return f"{CLINICS} clinics, each with a key, allergies auto-accepted and a webhook endpoint"

    def first_patients(self):
        for clinic in self.clinics:
            answer = self.api("POST", f"/v1/clinics/{clinic.id}/patients", clinic.key,
                              {"given_name": "Backup", "family_name": f"{self.run}-{clinic.name}-first",
                               "birth_date": "1980-01-01"}, headers={"Idempotency-Key": str(uuid.uuid4())})
            expect(answer.status == 201, f"first patient of {clinic.name}: {answer.status} {answer.body[:300]!r}")
            clinic.patient_id = answer.json["data"]["id"]
        return "the patient each clinic's allergy sends are about"

    # -- backups under load --

    def full_backup_under_load(self):
        self.writes = Writes(self).start()
        time.sleep(3)
        from_standby = self.repository.standby_replays()
        took = self.repository.backup("full")
        time.sleep(2)
        full = self.repository.info()["backup"][-1]
        expect(full["type"] == "full", f"the last backup is {full['type']}")
        expect(self.repository.standby_replays() > from_standby, "the full backup was not taken from the standby")
        written = len(self.writes.keys())
        self.full_seconds = took
        return (f"full backup from {self.standby.name} in {took:.1f} s while {written} writes answered: "
                f"{self.figures(full)}")

    def differential_backup_under_load(self):
        time.sleep(2)
        from_standby = self.repository.standby_replays()
        took = self.repository.backup("diff")
        time.sleep(2)
        diff = self.repository.info()["backup"][-1]
        expect(diff["type"] == "diff", f"the last backup is {diff['type']}")
        # The worker's own read of `pgbackrest info --output=json` (the backup alert's input), here with the
        # rehearsal's configuration file: the newest backup without an error is the one just taken.
        read = report_backup(self.repository.stanza, run=lambda command, **kw: run_as_owner(
            [command[0], f"--config={self.repository.config}", *command[1:]], timeout=kw["timeout"]))
        expect(read == diff["timestamp"]["stop"],
               f"the worker read {read} from pgbackrest info as the last backup's stop, not "
               f"{diff['timestamp']['stop']}")
        expect(self.repository.standby_replays() > from_standby, "the differential was not taken from the standby")
        return (f"differential backup from {self.standby.name} in {took:.1f} s: {self.figures(diff)}; "
                "the worker's read of pgbackrest info agrees")

    def point_in_time(self):
        self.writes.pause()
        self.paused_at = time.monotonic()
        time.sleep(1)
        self.target = self.primary.sql("SELECT clock_timestamp()")[0]
        time.sleep(1)
        self.resumed_at = time.monotonic()
        self.writes.resume()
        before = self.writes.keys(answered_before=self.paused_at)
        return f"T = {self.target.isoformat()}, {len(before)} writes acknowledged before it, writers resumed"

    def accident(self):
        time.sleep(3)
        victim, other = self.clinics[0], self.clinics[1]
        with self.primary.connect(DATABASE) as connection:
            destroyed = connection.execute(f'DELETE FROM "{victim.schema}".patients WHERE family_name LIKE %s',
                                           (f"bk-{self.run}-{victim.name}-%",)).rowcount
        time.sleep(2)
        self.writes.stop()
        later = self.writes.keys(clinic=other.name, answered_after=self.resumed_at)
        expect(later, f"clinic {other.name} wrote nothing after T")
        # A key revoked after T: the restore brings it back unrevoked, the security-events file keeps it.
        revoked = self.clinics[2]
        self.stack.admin("key", "revoke", revoked.key_id)
        expect(self.api("GET", "/v1/me", revoked.key).status == 401, "the revoked key still authenticates")
        # The seqs partners may have seen: each clinic's counter on the primary, which the restore loses.
        with self.primary.connect(DATABASE) as connection:
            self.issued = {clinic.name: connection.execute(
                f'SELECT value FROM "{clinic.schema}".event_counter').fetchone()[0] for clinic in self.clinics}
        return (f"clinic {victim.name}: {destroyed} patients destroyed by SQL while clinic {other.name} wrote "
                f"{len(later)} more; {len(self.writes.keys())} writes in all; clinic {revoked.name}'s key revoked; "
                f"seqs issued {self.issued}")

    def archive_lag(self):
        """How long a WAL segment takes from its switch to the repository (the RPO beyond archive_timeout)."""
        segment = self.primary.sql("SELECT pg_walfile_name(pg_current_wal_lsn())")[0]
        started = time.monotonic()
        self.primary.sql("SELECT pg_switch_wal()")
        while time.monotonic() - started < 60:
            archived, failed = self.primary.sql("SELECT last_archived_wal, failed_count FROM pg_stat_archiver")
            if archived is not None and archived[:24] >= segment:
                break
            time.sleep(0.05)
        else:
            raise Failed(f"segment {segment} not archived within 60 s")
        self.lag = time.monotonic() - started
        failed -= self.failed_before
        expect(failed == 0, f"{failed} archive-push attempts failed (see {self.cluster.folder}/pg_a.log)")
        self.repository.run("check")
        return (f"a switched segment in the repository {self.lag:.2f} s later; RPO at most archive_timeout "
                f"({ARCHIVE_TIMEOUT_SECONDS} s here) + {self.lag:.2f} s; pgbackrest check passes")

    # -- whole-database point-in-time recovery --

    def restore_to_t(self):
        target = self.target.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f+00")
        took = self.repository.restore(self.copy, target)
        started = time.monotonic()
        self.copy.start()
        while self.copy.in_recovery():
            expect(time.monotonic() - started < 120, "the restored copy is still recovering after 120 s")
            time.sleep(0.2)
        self.restore_seconds = took + time.monotonic() - started
        files = sum(1 for path in self.copy.pgdata.rglob("*") if path.is_file())
        size = sum(path.stat().st_size for path in self.copy.pgdata.rglob("*") if path.is_file())
        return (f"restored to T into {self.copy.pgdata.name} in {took:.1f} s, recovered and promoted "
                f"{time.monotonic() - started:.1f} s later ({size / 2**20:.0f} MiB, {files} files)")

    def acknowledged_before_t_restored(self):
        before = self.writes.keys(answered_before=self.paused_at)
        after = self.writes.keys(answered_after=self.resumed_at)
        found = set()
        with self.copy.connect(DATABASE) as connection:
            for clinic in self.clinics:
                found |= {row[0] for row in connection.execute(
                    f'SELECT family_name FROM "{clinic.schema}".patients WHERE family_name LIKE %s',
                    (f"bk-{self.run}-%",))}
                found |= {row[0] for row in connection.execute(
                    f'SELECT client_reference FROM "{clinic.schema}".submissions WHERE client_reference LIKE %s',
                    (f"bk-{self.run}-%",))}
        missing = before - found
        expect(not missing, f"{len(missing)} writes acknowledged before T are missing: {sorted(missing)[:3]}")
        extra = after & found
        expect(not extra, f"{len(extra)} writes acknowledged after T are in the copy: {sorted(extra)[:3]}")
        return (f"all {len(before)} writes acknowledged before T are in the copy, none of the {len(after)} "
                "acknowledged after it")

    def _audit_after_t(self, node):
        with node.connect(DATABASE) as connection:
            return {clinic.name: {row[0] for row in connection.execute(
                f'SELECT id FROM "{clinic.schema}".audit_log WHERE at > %s', (self.target,))}
                for clinic in self.clinics}

    def restore_finished(self):
        """`database restored` on the copy: the feeds past every seq issued, the revocation applied again, the
        audit trail after T copied from the old primary (here still running, as production)."""
        copy_url = f"postgresql://{embedded.APP_ROLE}@127.0.0.1:{self.copy.port}/{DATABASE}"
        old_primary = f"postgresql://{embedded.APP_ROLE}@127.0.0.1:{self.primary.port}/{DATABASE}"
        trail = self._audit_after_t(self.primary)
        expect(any(trail.values()), "no audit entry after T on the old primary")
        production_url, self.stack.database_url = self.stack.database_url, copy_url
        try:
            done = self.stack.admin("database", "restored", "--to", self.target.isoformat(),
                                    "--security-events", str(self.stack.security_events),
                                    "--audit-from", old_primary)
        finally:
            self.stack.database_url = production_url
        expect(done["security_events"]["applied"] == {"key.revoked": 1}, f"database restored: {done}")
        copied = self._audit_after_t(self.copy)
        lacking = {name: len(ids - copied[name]) for name, ids in trail.items() if ids - copied[name]}
        expect(not lacking, f"audit entries after T not copied from the old primary, per clinic: {lacking}")
        expect(done["audit_entries_copied"] >= sum(map(len, trail.values())), f"database restored: {done}")
        with self.copy.connect(DATABASE) as connection:
            for clinic in self.clinics:
                counter = connection.execute(f'SELECT value FROM "{clinic.schema}".event_counter').fetchone()[0]
                expect(counter > self.issued[clinic.name],
                       f"clinic {clinic.name}'s feed at {counter}, seq {self.issued[clinic.name]} was issued")
                restored = connection.execute(
                    f'SELECT data FROM "{clinic.schema}".events WHERE type = %s AND seq = %s',
                    ("clinic.restored", counter)).fetchone()
                expect(restored and restored[0]["restored_to"] == self.target.isoformat(),
                       f"clinic {clinic.name}: no clinic.restored event at seq {counter}: {restored}")
            revoked = connection.execute("SELECT revoked_at FROM control.api_keys WHERE key_id = %s",
                                         (self.clinics[2].key_id,)).fetchone()[0]
        expect(revoked is not None, "the key revoked after T is not revoked in the copy")
        return (f"{done['clinics']} clinics' feeds moved {done['seq_gap']} past their seq, each with a "
                "clinic.restored event; the key revoked after T revoked again from the security-events file; "
                f"{done['audit_entries_copied']} audit entries of after T copied from the old primary")

    # -- one clinic restored from the copy while the service runs --

    def _records(self, connection, clinic, marker):
        """The rehearsal's writes found in the clinic's tables (patients by family name, sends by reference)."""
        found = set()
        for statement in ('SELECT family_name FROM "{}".patients WHERE family_name LIKE %s',
                          'SELECT client_reference FROM "{}".submissions WHERE client_reference LIKE %s'):
            found |= {row[0] for row in connection.execute(statement.format(clinic.schema), (marker,))}
        return found

    def one_clinic_restored(self):
        """`clinic restore` of the clinic the accident hit, from the copy, while the other clinic writes on."""
        victim, other = self.clinics[0], self.clinics[1]
        with self.primary.connect(DATABASE) as connection:
            feed_before = connection.execute(f'SELECT count(*), max(seq) FROM "{victim.schema}".events').fetchone()
            audit_before = connection.execute(f'SELECT count(*) FROM "{victim.schema}".audit_log').fetchone()[0]
        during = Writes(self, clinics=[other], tag="r").start()
        reads = Reads(self, victim).start()
        time.sleep(1)
        copy_url = f"postgresql://{embedded.APP_ROLE}@127.0.0.1:{self.copy.port}/{DATABASE}"
        done = self.stack.admin("clinic", "restore", "--clinic", victim.id, "--from", copy_url)
        time.sleep(1)
        during.stop()
        reads.stop()
        # Its key is told to wait while the restore holds the clinic, never anything else.
        answered = {answer for answer in reads.answers if answer[0] != 200}
        expect(answered <= {(503, "10", "service_unavailable")},
               f"clinic {victim.name}'s key was answered {sorted(answered, key=str)[:3]} during its restore")
        expect(reads.answers and reads.answers[-1][0] == 200, f"clinic {victim.name}'s key still refused")
        waited = sum(1 for answer in reads.answers if answer[0] == 503)
        written_during = during.keys()
        expect(written_during, f"clinic {other.name} wrote nothing while the restore ran")
        victims_at_t = self.writes.keys(clinic=victim.name, answered_before=self.paused_at)
        victims_after_t = self.writes.keys(clinic=victim.name, answered_after=self.resumed_at)
        others = self.writes.keys(clinic=other.name) | written_during
        with self.primary.connect(DATABASE) as connection:
            back = self._records(connection, victim, f"bk-{self.run}-%")
            kept = self._records(connection, other, f"bk-{self.run}-%")
            feed_after = connection.execute(
                f'SELECT count(*), max(seq), (SELECT type FROM "{victim.schema}".events ORDER BY seq DESC LIMIT 1) '
                f'FROM "{victim.schema}".events').fetchone()
            audit_after = connection.execute(f'SELECT count(*) FROM "{victim.schema}".audit_log').fetchone()[0]
        missing = victims_at_t - back
        expect(not missing, f"{len(missing)} of clinic {victim.name}'s writes before T are not back: "
                            f"{sorted(missing)[:3]}")
        expect(not victims_after_t & back, f"clinic {victim.name} holds writes of after T")
        lost = others - kept
        expect(not lost, f"{len(lost)} of clinic {other.name}'s writes are gone: {sorted(lost)[:3]}")
        expect(feed_after[:2] == (feed_before[0] + 1, feed_before[1] + 1) and feed_after[2] == "clinic.restored",
               f"clinic {victim.name}'s feed before {feed_before}, after {feed_after}")
        expect(audit_after >= audit_before, f"clinic {victim.name}'s audit trail: {audit_before} -> {audit_after}")
        return (f"clinic {victim.name}: {done['rows'].get('patients')} patients and "
                f"{done['rows'].get('submissions')} submissions of T back in {done['seconds']:.1f} s "
                f"(copy at {done['restored_to']}), all {len(victims_at_t)} writes before T there, none of the "
                f"{len(victims_after_t)} after; clinic {other.name}'s {len(others)} writes intact "
                f"({len(written_during)} during the restore); clinic {victim.name}'s key read "
                f"{len(reads.answers)} times, {waited} of them 503 with Retry-After; "
                f"the feed went on at seq {feed_after[1]} "
                f"(clinic.restored), the audit trail kept its {audit_before} entries")

    def stop(self):
        super().stop()
        if self.writes is not None:
            self.writes.stopping.set()
            self.writes.running.set()
        try:
            self.copy.stop("immediate")
        except RuntimeError:
            self.copy.kill()
        self.cluster.stop()


CHECKS = [
    *started_on_a_cluster("PostgreSQL primary and synchronous standby, WAL archived by pgBackRest"),
    ("a first patient in each clinic", "first_patients"),
    ("a full backup from the standby under load", "full_backup_under_load"),
    ("a differential backup under load", "differential_backup_under_load"),
    ("the writers paused, T noted, resumed", "point_in_time"),
    ("accident: one clinic's rows destroyed by SQL, another clinic writing", "accident"),
    ("the archive's lag", "archive_lag"),
    ("the whole database restored to T in a fresh folder", "restore_to_t"),
    ("every write acknowledged before T is there, none after", "acknowledged_before_t_restored"),
    ("after the restore: feeds past every issued seq, security events applied again, the audit trail after T "
     "copied", "restore_finished"),
    ("one clinic restored from the copy while the service runs", "one_clinic_restored"),
]
