"""A webhook receiver on loopback that verifies every delivery with the `standardwebhooks` library and keeps
what arrived, by webhook-id. It can hold its answers (so a worker can be killed mid-delivery)."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.common.loopback import LoopbackServer


class Receiver(LoopbackServer):
    def __init__(self, secret=None):
        self.secret = secret
        self.hold_seconds = 0.0
        self.lock = threading.Lock()
        self.received = []      # (webhook_id, event) of every verified request, duplicates included
        self.rejected = 0       # requests whose signature did not verify
        self.in_flight = 0
        super().__init__(self._handler())

    @property
    def url(self):
        return f"{self.origin}/hooks"

    def events(self):
        """webhook-id -> event, each id once (the receiver's deduplication)."""
        with self.lock:
            return {webhook_id: event for webhook_id, event in self.received}

    def count(self, webhook_id):
        with self.lock:
            return sum(1 for received_id, _ in self.received if received_id == webhook_id)

    def _handler(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    Webhook(receiver.secret).verify(body, {name.lower(): value for name, value in self.headers.items()})
                except WebhookVerificationError:
                    with receiver.lock:
                        receiver.rejected += 1
                    self._answer(400)
                    return
                with receiver.lock:
                    receiver.received.append((self.headers["webhook-id"], json.loads(body)))
                    receiver.in_flight += 1
                try:
                    if receiver.hold_seconds:
                        time.sleep(receiver.hold_seconds)
                    self._answer(204)
                except OSError:
                    pass  # the worker went away mid-delivery
                finally:
                    with receiver.lock:
                        receiver.in_flight -= 1

            def _answer(self, status):
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        return Handler
