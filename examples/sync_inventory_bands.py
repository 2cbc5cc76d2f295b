"""Example (b): keep a local copy of a clinic's stock bands in sync from the change feed and webhooks.

The copy is a JSON file: every item's band, the till's freshness and `after_seq`, the last feed position
applied. A run takes a snapshot the first time, then catches up from the change feed (`after_seq` /
`next_after`), and with `--listen` also receives webhooks on a small local receiver that checks each
signature with the client's verifier. Events are applied once, in `seq` order: one at or below `after_seq` is
a duplicate (a retried or replayed webhook) and is skipped; one that skips ahead (a webhook overtook another)
is filled in from the feed first. A lost webhook is therefore harmless: the next catch-up finds its event.

Events are recorded only while a webhook endpoint is registered (spec Events rule 5). Register one for your
workspace's sandbox pointing at the receiver; the command prints the signing secret:

    clinicrecords-admin development.ini webhook add --workspace WORKSPACE_ID --mode test \
        --url http://127.0.0.1:8787/webhooks

then, with a test key (`scripts/serve` prints one):

    python examples/sync_inventory_bands.py --base-url http://localhost:6543 --key ehr_test_... \
        --listen 127.0.0.1:8787 --webhook-secret whsec_... --change-stock

`--change-stock` uses the sandbox test helpers to move stock (an item runs out and is restocked, the till
goes stale and reports again) so there is something to sync; `--follow` keeps receiving until Ctrl-C,
catching up from the feed every `--poll` seconds as a safety net.
"""

import argparse
import json
import os
import queue
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
from clinicrecords_client import ApiError, Client, WebhookVerificationError, verify_webhook


class LocalCopy:
    """The JSON file: `{clinic_id, after_seq, till_stale, items: {id: {name, band, as_of}}}`."""

    def __init__(self, path):
        self.path = Path(path)
        self.data = json.loads(self.path.read_text()) if self.path.exists() else {}

    def save(self):
        # Written whole then renamed: an interrupted run never leaves half a file.
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(json.dumps(self.data, indent=2, sort_keys=True))
        os.replace(temporary, self.path)


class BandSync:
    def __init__(self, api, clinic_id, copy, log=print):
        self.api = api
        self.clinic = api.clinic(clinic_id) if api is not None else None
        self.clinic_id = str(clinic_id)
        self.copy = copy
        self.log = log
        self.applied = {"webhook": 0, "feed": 0}
        self.duplicates = 0

    @property
    def after_seq(self):
        return self.copy.data["after_seq"]

    @property
    def items(self):
        return self.copy.data["items"]

    def start(self):
        """Resume from the file, or take a first snapshot: the feed position first, then the items, so every
        change after the snapshot is still ahead in the feed (re-applying an older one is harmless)."""
        if self.copy.data.get("clinic_id") == self.clinic_id:
            self.log(f"resuming at seq {self.after_seq} with {len(self.items)} items")
            return
        position = 0
        for event in self.api.events(self.clinic_id, after_seq=0):
            position = event["seq"]
        self.copy.data = {"clinic_id": self.clinic_id, "after_seq": position, "till_stale": False,
                          "items": {}}
        self._reread_all()
        self.log(f"snapshot: {len(self.items)} items at seq {position}")

    def _reread_all(self):
        items = {item["id"]: self._entry(item) for item in self.clinic.inventory_items.iterate()}
        self.copy.data["items"] = items
        self.copy.data["till_stale"] = bool(items) and all(e["band"] == "unknown" for e in items.values())

    @staticmethod
    def _entry(item):
        return {"name": item["name"], "band": item.get("band"), "as_of": item.get("as_of")}

    def catch_up(self):
        """Apply every event after `after_seq`, page by page, until `next_after` stops moving."""
        before = self.applied["feed"]
        for event in self.api.events(self.clinic_id, after_seq=self.after_seq):
            self.receive(event, "feed")
        self.log(f"feed: caught up at seq {self.after_seq} ({self.applied['feed'] - before} new)")

    def receive(self, event, source):
        seq = event.get("seq")
        if seq is None:  # webhook.ping from `webhook test`: not a feed event
            self.log(f"{source}: {event.get('type')} (no seq), nothing to apply")
            return
        if seq <= self.after_seq:
            self.duplicates += 1
            self.log(f"{source} seq {seq} {event['type']}: already applied, skipped")
            return
        if seq > self.after_seq + 1 and source == "webhook":
            self.log(f"webhook seq {seq} skips ahead of seq {self.after_seq}: "
                     "catching up from the feed first")
            self.catch_up()
            if seq <= self.after_seq:
                return
        self._apply(event, source)

    def _apply(self, event, source):
        kind, data = event["type"], event.get("data") or {}
        if kind == "inventory.availability.changed":
            entry = self.items.get(data["id"]) or self._fetch(data["id"])
            if entry is not None:
                entry["band"], entry["as_of"] = data["band"], event["created_at"]
                detail = f"{entry['name']}: {data.get('previous_band')} -> {data['band']}"
            else:
                detail = "item no longer readable"
        elif kind in ("inventory.item.created", "inventory.item.updated"):
            entry = self._fetch(data["id"])
            detail = entry["name"] if entry else "item no longer readable"
        elif kind == "inventory.item.deleted":
            entry = self.items.pop(data["id"], None)
            detail = f"{entry['name'] if entry else data['id']} removed"
        elif kind == "listing.freshness.changed":
            # Every band changes with the till's freshness: one availability event per item follows this one.
            self.copy.data["till_stale"] = bool(data.get("stale"))
            detail = ("the till went stale: every band turns unknown" if data.get("stale")
                      else "the till reports again: every band turns known")
        else:
            detail = "not about bands"
        self.copy.data["after_seq"] = event["seq"]
        self.copy.save()
        self.applied[source] += 1
        self.log(f"{source} seq {event['seq']} {kind}: {detail}")

    def _fetch(self, item_id):
        try:
            item = self.clinic.inventory_items.get(item_id)
        except ApiError as error:
            if error.status != 404:
                raise
            self.items.pop(item_id, None)
            return None
        self.items[item_id] = self._entry(item)
        return self.items[item_id]

    def compare(self):
        """Whether the copy equals the bands the service shows now."""
        now = {item["id"]: item.get("band") for item in self.clinic.inventory_items.iterate()}
        return now == {item_id: entry["band"] for item_id, entry in self.items.items()}


class WebhookReceiver(ThreadingHTTPServer):
    """POST /webhooks: 204 for a correctly signed event (queued for the main thread), 400 otherwise."""

    daemon_threads = True

    def __init__(self, address, secret, log=print):
        self.secret = secret
        self.events = queue.Queue()
        self.log = log
        super().__init__(address, _WebhookHandler)

    def start(self):
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self


class _WebhookHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            event = verify_webhook(self.server.secret, dict(self.headers.items()), body)
        except WebhookVerificationError as error:
            self.server.log(f"webhook refused: {error}")
            self.send_response(400)
        else:
            self.server.events.put(event)
            self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def change_stock(api, sync):
    """What a pharmacy's till would do, played by the sandbox test helpers."""
    helpers, clinic = api.test_helpers, sync.clinic_id
    helpers.till_report(clinic)  # a fresh till, so stock changes move bands (a fresh till reports silently)
    items = list(sync.clinic.inventory_items.iterate())
    first = next(item for item in items if item.get("band") not in ("out", "unknown"))
    second = next(item for item in items if item["id"] != first["id"])
    sync.log(f"changing stock: {first['name']} runs out and is restocked; the till goes stale while "
             f"{second['name']} changes, then reports again")
    helpers.set_stock(clinic, first["id"], 0)
    helpers.set_stock(clinic, first["id"], first["low_at"] + 40)
    helpers.till_stale(clinic)
    helpers.set_stock(clinic, second["id"], 0 if second.get("band") != "out" else second["low_at"] + 40)
    helpers.till_report(clinic)


def drain(sync, receiver, settle, stop=None):
    """Apply queued webhooks until none has arrived for `settle` seconds, or until `stop` is set."""
    quiet_since = time.monotonic()
    while stop is None or not stop.is_set():
        try:
            event = receiver.events.get(timeout=min(settle, 0.2))
        except queue.Empty:
            if time.monotonic() - quiet_since >= settle:
                return
            continue
        sync.receive(event, "webhook")
        quiet_since = time.monotonic()


def stop_on_ctrl_c():
    """An event Ctrl-C sets. Following, the loop stops between two steps, never in the middle of a request
    (an interrupted request could leave the client's connection half read for the final comparison)."""
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    return stop


class NoClinic(Exception):
    pass


def run(api, state, listen=None, secret=None, change=False, follow=False, poll=30.0, settle=2.0,
        clinic_id=None):
    if clinic_id is None:
        reached = api.connections()
        if not reached:
            raise NoClinic("this key reaches no clinic yet (a live key needs a clinic's approved connection)")
        clinic_id = reached[0]["clinic_id"]
    sync = BandSync(api, clinic_id, LocalCopy(state))
    sync.start()
    sync.copy.save()
    receiver = None
    stop = stop_on_ctrl_c() if follow else threading.Event()
    if listen:
        host, _, port = listen.rpartition(":")
        receiver = WebhookReceiver((host or "127.0.0.1", int(port)), secret).start()
        print(f"receiving webhooks on http://{host or '127.0.0.1'}:{port}/webhooks")
    try:
        sync.catch_up()
        if change:
            change_stock(api, sync)
        if receiver is not None:
            drain(sync, receiver, settle)
        while follow and not stop.is_set():
            if receiver is not None:
                drain(sync, receiver, poll, stop)
            else:
                stop.wait(poll)
            if not stop.is_set():
                sync.catch_up()
        if (receiver is not None or change) and not stop.is_set():
            sync.catch_up()  # a safety net: a webhook that never came is found here
    except KeyboardInterrupt:
        pass
    finally:
        if receiver is not None:
            receiver.shutdown()
            receiver.server_close()
        sync.copy.save()
    print(f"applied from webhooks: {sync.applied['webhook']}, from the feed: {sync.applied['feed']}, "
          f"duplicates skipped: {sync.duplicates}")
    for entry in sorted(sync.items.values(), key=lambda entry: entry["name"]):
        print(f"  {entry['name']}: {entry['band']}")
    matches = "yes" if sync.compare() else "no"
    print(f"local copy {state} at seq {sync.after_seq}; matches the service: {matches}")
    return sync


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://localhost:6543")
    parser.add_argument("--key", required=True, help="a key with inventory.items:read and "
                                                     "inventory.availability:read (a test key has them)")
    parser.add_argument("--state", default="inventory_bands.json", help="the local copy (a JSON file)")
    parser.add_argument("--listen", help="HOST:PORT for the webhook receiver, e.g. 127.0.0.1:8787")
    parser.add_argument("--webhook-secret", help="the endpoint's signing secret (whsec_...)")
    parser.add_argument("--change-stock", action="store_true",
                        help="sandbox only: move stock with the test helpers")
    parser.add_argument("--clinic", help="the clinic to sync (default: the first the key reaches; a test key "
                                         "reaches only its sandbox)")
    parser.add_argument("--follow", action="store_true", help="keep syncing until Ctrl-C")
    parser.add_argument("--poll", type=float, default=30.0,
                        help="seconds between feed catch-ups with --follow")
    args = parser.parse_args(argv)
    if args.listen and not args.webhook_secret:
        parser.error("--listen needs --webhook-secret: unsigned webhooks are never applied")
    try:
        with Client(args.base_url, args.key) as api:
            run(api, args.state, args.listen, args.webhook_secret, args.change_stock, args.follow, args.poll,
                clinic_id=args.clinic)
    except NoClinic as error:
        print(f"failed: {error}", file=sys.stderr)
        return 1
    except ApiError as error:
        print(f"failed: {error.code} {error.detail} (request {error.request_id})", file=sys.stderr)
        return 1
    except httpx.TransportError as error:
        print(f"failed: cannot reach {args.base_url} ({error or type(error).__name__}); is the service running?",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
