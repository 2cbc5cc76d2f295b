"""Helpers for the events tests: emitting through the outbox, a real HTTP receiver on 127.0.0.1, and the
operator CLI run in-process."""

import datetime
import threading
import uuid
from http.server import BaseHTTPRequestHandler

import pytest
from sqlalchemy import update
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.events.models import WebhookDelivery, WebhookEndpoint
from clinicrecords.events.outbox import emit
from tests.common.cli import admin  # noqa: F401  (re-exported: this context's tests import them from here)
from tests.common.loopback import LoopbackServer


def emit_events(world, clinic_id, count=1, type_="inventory.item.created", data=None, **kwargs):
    """Emit `count` events in one committed transaction; returns the recorded events (None when not)."""
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        return [emit(db, clinic_id, type_, uuid.uuid4(), data if data is not None else {"id": str(uuid.uuid4())},
                     **kwargs) for _ in range(count)]


def make_due(engine, endpoint_id=None):
    """Let time pass for pending deliveries: each is due now, no queued task is expected to run it, and the
    endpoint's own pause (per-endpoint backoff) is over."""
    past = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)
    statement = update(WebhookDelivery).where(WebhookDelivery.status == "pending").values(
        next_attempt_at=past, queued_for=None, locked_until=None)
    paused = update(WebhookEndpoint).where(WebhookEndpoint.paused_until.is_not(None)).values(paused_until=past)
    if endpoint_id is not None:
        statement = statement.where(WebhookDelivery.endpoint_id == endpoint_id)
        paused = paused.where(WebhookEndpoint.id == endpoint_id)
    with engine.begin() as connection:
        connection.execute(statement)
        connection.execute(paused)


def expire_previous_secret(engine, endpoint_id):
    """Let a secret rotation's overlap run out."""
    with engine.begin() as connection:
        connection.execute(update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id).values(
            previous_secret_expires_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)))


def signed_by(request, secrets, not_by=()):
    """The received request carries one signature per secret in `secrets`, each verifies with the
    `standardwebhooks` package, and none of `not_by` does. Returns the verified payload."""
    _, headers, body = request
    assert len(headers["webhook-signature"].split(" ")) == len(secrets)
    payloads = [Webhook(secret).verify(body, headers) for secret in secrets]
    for secret in not_by:
        with pytest.raises(WebhookVerificationError):
            Webhook(secret).verify(body, headers)
    assert all(payload == payloads[0] for payload in payloads)
    return payloads[0]


class Receiver(LoopbackServer):
    """A webhook receiver on 127.0.0.1. `answers` is consumed one status per request (then `default`).
    A status of None makes the handler wait for `release` before answering 200 (a slow receiver). Every
    answer carries `body` (bytes; none by default)."""

    def __init__(self, answers=(), default=204, delay=0.0, body=b""):
        self.answers = list(answers)
        self.default = default
        self.delay = delay
        self.body = body
        self.requests = []
        self.arrived = threading.Event()
        self.release = threading.Event()
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.requests.append((self.path, dict(self.headers), body))
                    status = receiver.answers.pop(0) if receiver.answers else receiver.default
                receiver.arrived.set()
                if status is None:
                    receiver.release.wait(60)
                    status = 200
                if receiver.delay:
                    receiver.release.wait(receiver.delay)
                try:
                    self.send_response(status)
                    if 300 <= status < 400:
                        self.send_header("Location", "/redirected")
                    answer = receiver.body if status != 204 else b""
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        super().__init__(Handler)

    @property
    def url(self):
        return f"{self.origin}/hooks/clinic-records"

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.release.set()
        self.stop()
