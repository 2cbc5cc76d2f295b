"""`scripts/rehearse --sentinel`: the production stack with Redis behind Sentinel (decision 0080).

A Redis primary, its replica and three Sentinels on loopback (Debian's redis-server and redis-sentinel), and
`REDIS_URL` in the Sentinel form; the rest is the rehearsal's stack. Its faults: the primary SIGKILLed under
write load with work queued (503, never 500, while no primary answers; 2xx again after the promotion; the old
primary comes back as a replica, never as a second primary; the queued work completes exactly once by its
effect), then the queue emptied on the new primary, as an asynchronous replica may lack what the old primary
acknowledged (the sweeps queue every import and delivery again, each completes once)."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from tests.common.redis_sentinel import SentinelGroup
from tests.rehearsal.checks import Rehearsal, expect
from tests.rehearsal.client import call, wait_until
from tests.rehearsal.stack import WORKER_OVERRIDES, Stack, ini_with

# Beyond the rehearsal's own overrides: an import whose writer stopped beating for 10 s (not 60 s) is resumed,
# so the lost-queue fault takes about a minute rather than two.
SENTINEL_WORKER_OVERRIDES = {**WORKER_OVERRIDES, "patient_imports.stale_after_seconds": "10"}
QUEUE_KEYS = ("huey.redis.clinicrecords", "huey.schedule.clinicrecords")
LOAD_CLIENTS = 6


class SentinelStack(Stack):
    """The rehearsal's stack with `REDIS_URL` naming three Sentinels and the service they watch."""

    def __init__(self, workdir):
        super().__init__(workdir)
        self.redis = SentinelGroup(self.workdir / "redis", maxmemory="256mb")

    def prepare(self):
        super().prepare()
        self.worker_ini = ini_with(SENTINEL_WORKER_OVERRIDES, self.workdir / "worker.ini")


class SentinelRehearsal(Rehearsal):
    def __init__(self, workdir):
        super().__init__(workdir)
        self.stack = SentinelStack(workdir)

    def seed(self):
        detail = super().seed()
        # Every call here uses the key without a practical limit: the polling through the failover would
        # otherwise outrun a live key's 600 a minute.
        self.clinic_key = self.load_key
        return detail

    def redis(self):
        group = self.stack.redis
        group.start()
        primary, replica = group.servers
        expect(group.primary_port() == primary.port, "the Sentinels do not name the first server the primary")
        return (f"primary 127.0.0.1:{primary.port}, replica :{replica.port}, Sentinels "
                f"{', '.join(f':{port}' for port in group.sentinel_ports)}; REDIS_URL={group.url}")

    def _primary_client(self):
        group = self.stack.redis
        return group.server_on(group.primary_port()).client()

    def _queued(self):
        with self._primary_client() as client:
            return client.llen(QUEUE_KEYS[0])

    def _load(self, stop, outcomes, seen, lock):
        """Clients creating patients with Idempotency-Keys, each retried on 502/503/504 until it is answered."""
        def create(key):
            body = {"given_name": "Sentinel", "family_name": key, "birth_date": "1990-05-05"}
            for _ in range(100):
                try:
                    answer = self.api("POST", f"/v1/clinics/{self.clinic_id}/patients", self.load_key, body,
                                      headers={"Idempotency-Key": key}, timeout=30)
                except OSError:
                    answer = None
                with lock:
                    seen.append(answer.status if answer else None)
                if answer is not None and answer.status not in (502, 503, 504):
                    return answer
                time.sleep(0.1)
            return answer

        def client(number):
            sent = 0
            while not stop.is_set():
                key = f"sentinel-{self.run}-{number}-{sent}"
                outcomes[key] = create(key)
                sent += 1

        return [threading.Thread(target=client, args=(n,)) for n in range(LOAD_CLIENTS)]

    def primary_killed_under_load(self):
        stack, group = self.stack, self.stack.redis
        stack.kill(stack.worker)  # nothing consumes: the queued work must outlive the primary
        with ThreadPoolExecutor(2) as pool:  # a valid import waits its 10 s bound for the job, then answers 202
            valid = list(pool.map(lambda n: self.start_import(f"failover-{n}"), range(2)))
        invalid = [self.start_import(f"failover-review-{n}", valid=False) for n in range(2)]
        queued = self._queued()
        expect(queued >= 4, f"{queued} task(s) queued, expected at least 4")
        with self._primary_client() as client:
            expect(client.wait(1, 5000) == 1, "the replica did not confirm the queued work")
        outcomes, seen, lock, stop = {}, [], threading.Lock(), threading.Event()
        clients = self._load(stop, outcomes, seen, lock)
        for thread in clients:
            thread.start()
        try:
            time.sleep(2)
            old = group.kill_primary()
            killed = time.monotonic()
            expect(group.failed_over_from(old, 30), "no Sentinel promoted the replica within 30 s")
            promoted = time.monotonic()
            back = wait_until(lambda: call(stack.port, "GET", "/v1/me", key=self.clinic_key).status == 200, 15,
                              pause=0.1)
            answered = time.monotonic()
            expect(back, "no 2xx within 15 s of the promotion")
            time.sleep(2)
        finally:
            stop.set()
            for thread in clients:
                thread.join()
        statuses = sorted({str(status) for status in seen})
        expect(set(seen) <= {201, 503} and 503 in seen, f"answers during the failover: {statuses}")
        final = {answer.status if answer else None for answer in outcomes.values()}
        expect(final == {201}, f"final answers {sorted(map(str, final))}")
        written = self.patients_named(f"sentinel-{self.run}-")
        expect(len(written) == len(outcomes) and set(written.values()) == {1},
               f"{len(outcomes)} creates, {len(written)} patients, counts {set(written.values())}")
        group.restart_as_replica(old)
        rejoined = group.wait(lambda: _role(group.server_on(old)) == "slave" and group.primary_port() != old, 30)
        expect(rejoined, f"the old primary :{old} did not come back as a replica")
        stack.start_worker()
        self._expect_each_once("failover-", valid, invalid, 90)
        refused = sum(1 for status in seen if status == 503)
        return (f"{queued} tasks queued; primary :{old} SIGKILLed under {LOAD_CLIENTS} writers; promoted after "
                f"{promoted - killed:.1f} s, 2xx {answered - promoted:.1f} s later; {refused} answers 503, none 500; "
                f"{len(outcomes)} creates each once; old primary back as a replica; the queued imports and "
                "deliveries each completed once")

    def queue_lost_in_failover(self):
        stack = self.stack
        stack.kill(stack.worker)
        valid = [self.start_import("lost-0")]
        invalid = [self.start_import(f"lost-review-{n}", valid=False) for n in range(2)]
        queued = self._queued()
        expect(queued >= 3, f"{queued} task(s) queued, expected at least 3")
        with self._primary_client() as client:  # what an asynchronous replica may lack when it is promoted
            client.delete(*QUEUE_KEYS)
        stack.start_worker()
        began = time.monotonic()
        self._expect_each_once("lost-", valid, invalid, 150)
        return (f"{queued} queued tasks dropped; the sweeps queued them again: each import and delivery completed "
                f"once, {time.monotonic() - began:.0f} s after the worker started")

    def _expect_each_once(self, tag, valid, invalid, timeout):
        done = wait_until(lambda: all(self.import_status(i) == "succeeded" for i in valid), timeout)
        expect(done, f"imports {tag}: {[self.import_status(i) for i in valid]}")
        written = self.patients_named(f"{self.run}-{tag}")
        expect(len(written) == 3 * len(valid) and set(written.values()) == {1}, f"patients written: {written}")
        arrived = wait_until(lambda: all(self.finished_event_for(i) for i in valid + invalid), timeout)
        expect(arrived, f"not every {tag} delivery arrived")
        expect(wait_until(self._all_delivered, 60), "deliveries still pending after the receiver had every event")
        copies = {i: self.receiver.count(self.finished_event_for(i)["id"]) for i in valid + invalid}
        expect(set(copies.values()) == {1}, f"deliveries per event: {copies}")

    def footprint(self):
        with self._primary_client() as client:
            keys, memory = client.dbsize(), client.info("memory")["used_memory_peak_human"]
            leftovers = client.llen(QUEUE_KEYS[0])
        expect(leftovers == 0, f"{leftovers} task(s) still queued at the end")
        return f"Redis {keys} keys, {memory} peak, nothing left queued"


def _role(server):
    with server.client() as client:
        return client.info("replication")["role"]


CHECKS = [
    ("secrets from the environment", "secrets"),
    ("database", "database"),
    ("redis behind three Sentinels", "redis"),
    ("migrate", "migrate"),
    ("seed through the operator CLI", "seed"),
    ("two web processes", "web_processes"),
    ("worker", "worker"),
    ("nginx", "proxy"),
    ("patient import written by the worker", "patient_import"),
    ("webhook delivered and verified", "webhook"),
    ("fault: the Redis primary SIGKILLed under load with work queued", "primary_killed_under_load"),
    ("fault: the queue lost in a failover", "queue_lost_in_failover"),
    ("footprint", "footprint"),
]
