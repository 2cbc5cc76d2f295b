"""Webhook receivers that hang, drip their answer a byte at a time, reset connections or answer 500 forever
never hold up other endpoints' deliveries: a real Huey consumer (two workers, file-backed queue, 1 s delivery
time limit) delivers every event to the healthy endpoints of the same clinic and of another clinic within
seconds, while each bad endpoint gets at most a couple of bounded attempts before its pause, and keeps its
deliveries pending. Once the failing receiver recovers, each of its events arrives exactly once."""

import json
import socket
import struct
import threading
import time

import pytest
from sqlalchemy import select

from clinicrecords.events.models import WebhookDelivery, WebhookEndpoint
from clinicrecords.events.tasks import sweep_deliveries
from tests.common.consumer import consumer_config, start_consumer, stop_consumer, wait_for
from tests.events.support import Receiver, emit_events, make_due

EVENTS = 16
HEALTHY_WITHIN = 12.0  # seconds from the consumer's first delivery attempt: measured 3.5 s; 15 s without the backoff
CONSUMER_STARTS_WITHIN = 60.0  # importing the app on a machine busy with the rest of the suite; not what is tested


class RawReceiver:
    """A TCP listener on 127.0.0.1 that misbehaves below HTTP: `reset` answers each connection with a TCP
    reset, `drip` sends a status line and then one header byte every 0.2 s for as long as it is read."""

    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.connections = 0
        self.stopped = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.getsockname()[1]}/hook"

    def _serve(self):
        while not self.stopped.is_set():
            try:
                connection, _ = self.server.accept()
            except TimeoutError:
                continue
            self.connections += 1
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection):
        with connection:
            if self.behaviour == "reset":
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            try:
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 200 OK\r\nX-Drip: ")
                while not self.stopped.is_set():
                    connection.sendall(b"x")
                    time.sleep(0.2)
            except OSError:
                return

    def close(self):
        self.stopped.set()
        self.thread.join(5)
        self.server.close()


@pytest.fixture
def consumer(queue_on_disk, engine):
    ini, env = consumer_config(queue_on_disk, engine, "webhooks.timeout_seconds = 1")
    started = []

    def start():
        started.append(start_consumer(ini, env))

    yield start
    for process in started:
        stop_consumer(process)


def _rows(engine, endpoint_id):
    with engine.connect() as connection:
        return connection.execute(select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)).all()


def _endpoint(engine, endpoint_id):
    with engine.connect() as connection:
        return connection.execute(select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id)).one()


def test_bad_receivers_never_hold_up_healthy_endpoints(world, engine, consumer):
    hang = Receiver(answers=[None] * 100)  # each request waits (up to a minute) for a release that never comes
    failing = Receiver(default=500)
    healthy_a, healthy_b = Receiver(), Receiver()
    drip, reset = RawReceiver("drip"), RawReceiver("reset")
    for receiver in (hang, failing, healthy_a, healthy_b):
        receiver.__enter__()
    try:
        clinic_a, clinic_b = world.clinic(), world.clinic()
        bad = {name: world.webhook(clinic_id=clinic_a, url=receiver.url)[0]
               for name, receiver in (("hang", hang), ("drip", drip), ("reset", reset), ("500", failing))}
        good_a, _ = world.webhook(clinic_id=clinic_a, url=healthy_a.url)
        good_b, _ = world.webhook(clinic_id=clinic_b, url=healthy_b.url)
        events_a = emit_events(world, clinic_a, EVENTS)  # every bad endpoint's deliveries are queued first
        events_b = emit_events(world, clinic_b, EVENTS)

        consumer()
        receivers = (hang, failing, healthy_a, healthy_b)
        assert wait_for(lambda: any(r.requests for r in receivers) or drip.connections or reset.connections,
                        CONSUMER_STARTS_WITHIN), "the consumer never made a delivery attempt"
        started = time.monotonic()

        def healthy_done():
            return all(row.status == "delivered" for endpoint in (good_a, good_b) for row in _rows(engine, endpoint))

        assert wait_for(healthy_done, HEALTHY_WITHIN), "healthy endpoints were held up by the bad ones"
        took = time.monotonic() - started
        for receiver, events in ((healthy_a, events_a), (healthy_b, events_b)):
            assert sorted(r[1]["webhook-id"] for r in receiver.requests) == sorted(str(e.id) for e in events)

        for name, endpoint_id in bad.items():
            rows = _rows(engine, endpoint_id)
            assert len(rows) == EVENTS and {row.status for row in rows} == {"pending"}, name
            attempts = sum(row.attempts for row in rows)
            assert 1 <= attempts <= 3, f"{name}: {attempts} attempts in {took:.1f} s; the pause must stop them"
            state = _endpoint(engine, endpoint_id)
            assert state.failing_since is not None and state.paused_until is not None, name
        assert drip.connections <= 3 and len(hang.requests) <= 3

        # The 500 receiver recovers: its pause is over, the sweep queues what waited, each event arrives once.
        failing.default = 204
        seen_before = len(failing.requests)
        make_due(engine, bad["500"])
        sweep_deliveries()
        assert wait_for(lambda: {row.status for row in _rows(engine, bad["500"])} == {"delivered"}, 30)
        recovered = [json.loads(body)["id"] for _, _, body in failing.requests[seen_before:]]
        assert sorted(recovered) == sorted(str(e.id) for e in events_a), "every event exactly once after recovery"
        assert _endpoint(engine, bad["500"]).failing_since is None
    finally:
        hang.release.set()
        for receiver in (hang, failing, healthy_a, healthy_b):
            receiver.__exit__(None, None, None)
        drip.close()
        reset.close()
