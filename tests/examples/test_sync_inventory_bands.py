"""Example (b): examples/sync_inventory_bands.py keeps a local copy of the sandbox's bands from webhooks and
the change feed, against the real service on 127.0.0.1."""

import importlib.util
import json
import queue
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest

from clinicrecords.events import signing
from clinicrecords.inventory.schemas import SANDBOX_ITEM_IDS
from tests.common.ports import free_port
from tests.examples.conftest import EXAMPLES, run_example


def _bands(testapp, clinic_id, key):
    items = testapp.get(f"/v1/clinics/{clinic_id}/inventory/items", {"limit": 100},
                        headers={"Authorization": f"Bearer {key}"}).json["data"]
    return {item["id"]: item["band"] for item in items}


def _feed_end(testapp, clinic_id, key):
    return testapp.get(f"/v1/clinics/{clinic_id}/events", {"limit": 200},
                       headers={"Authorization": f"Bearer {key}"}).json["next_after"]


class _Lines:
    """A process's output read by a thread: waiting for a line has a deadline, so a follower that never
    prints fails the test instead of hanging it."""

    def __init__(self, stream):
        self._received = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in iter(stream.readline, ""):
            self._received.put(line)
        self._received.put("")

    def within(self, seconds):
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._received.get(timeout=left)
            except queue.Empty:
                return
            if not line:
                return
            yield line


@pytest.fixture
def sandbox(world):
    workspace_id, clinic_id = world.workspace()
    return workspace_id, clinic_id, world.key(workspace_id=workspace_id, mode="test")


def test_webhooks_then_the_feed_keep_the_local_copy_in_sync(world, testapp, served, sandbox, tmp_path):
    workspace_id, clinic_id, key = sandbox
    port = free_port()
    _, secret = world.webhook(workspace_id=workspace_id, mode="test", url=f"http://127.0.0.1:{port}/webhooks")
    state = tmp_path / "bands.json"

    first = run_example("sync_inventory_bands.py", served, key, "--state", str(state), "--listen",
                        f"127.0.0.1:{port}", "--webhook-secret", secret, "--change-stock")
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "snapshot: 5 items at seq 0" in out
    # out, restocked, stale and each of the 5 bands to unknown, fresh and each band back: each applied once,
    # in order.
    assert out.count("webhook seq") == 14, out
    assert "inventory.availability.changed" in out and "-> out" in out and "the till went stale" in out
    assert out.count("-> unknown") == 5 and out.count(": unknown -> ") == 5
    assert "the till reports again: every band turns known" in out
    # The final catch-up found nothing the webhooks had not brought.
    assert "applied from webhooks: 14, from the feed: 0, duplicates skipped: 0" in out
    assert "matches the service: yes" in out
    copy = json.loads(state.read_text())
    assert {i: e["band"] for i, e in copy["items"].items()} == _bands(testapp, clinic_id, key)
    assert copy["after_seq"] == _feed_end(testapp, clinic_id, key) == 14 and copy["till_stale"] is False

    # No receiver now: the webhook fails (it is retried later), the feed brings the change next run.
    item = str(SANDBOX_ITEM_IDS["amoxicillin-500"])
    testapp.post_json(f"/v1/test_helpers/clinics/{clinic_id}/stock/set", {"item_id": item, "quantity": 0},
                      headers={"Authorization": f"Bearer {key}"})
    second = run_example("sync_inventory_bands.py", served, key, "--state", str(state))
    assert second.returncode == 0, second.stderr
    assert "resuming at seq 14 with 5 items" in second.stdout
    assert _bands(testapp, clinic_id, key)[item] == "out"
    assert "feed seq 15 inventory.availability.changed: Amoxicillin 500 mg capsules: in_stock -> out" \
        in second.stdout
    assert "applied from webhooks: 0, from the feed: 1" in second.stdout
    assert "matches the service: yes" in second.stdout
    assert json.loads(state.read_text())["items"][item]["band"] == "out"

    third = run_example("sync_inventory_bands.py", served, key, "--state", str(state))
    assert "feed: caught up at seq 15 (0 new)" in third.stdout and "matches the service: yes" in third.stdout


def test_listening_needs_a_secret_and_a_live_key_cannot_move_stock(world, served, sandbox, tmp_path):
    _, _, key = sandbox
    refused = run_example("sync_inventory_bands.py", served, key, "--listen", "127.0.0.1:9")
    assert refused.returncode == 2 and "--listen needs --webhook-secret" in refused.stderr
    workspace_id, _ = world.workspace()
    live_key = world.key(workspace_id=workspace_id, mode="live")
    state = str(tmp_path / "x.json")
    unconnected = run_example("sync_inventory_bands.py", served, live_key, "--state", state)
    assert unconnected.returncode == 1 and "failed: this key reaches no clinic yet" in unconnected.stderr
    real = world.clinic(seed=True)
    world.grant(workspace_id, real)
    # A real clinic's stock is never moved by an app: the test helpers do not exist for a live key.
    live = run_example("sync_inventory_bands.py", served, live_key, "--state", state, "--change-stock")
    assert live.returncode == 1 and "failed: not_found" in live.stderr, live.stderr
    assert "snapshot: 5 items" in live.stdout


def _module():
    path = EXAMPLES / "sync_inventory_bands.py"
    spec = importlib.util.spec_from_file_location("sync_inventory_bands", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_receiver_refuses_unsigned_webhooks_and_duplicates_are_applied_once(tmp_path):
    module = _module()
    secret = signing.new_secret()
    event = {"id": "evt_1", "type": "inventory.item.deleted", "clinic_id": "c", "subject_id": "i", "seq": 1,
             "data": {"id": "i"}, "created_at": "2026-01-01T00:00:00Z"}
    body = json.dumps(event).encode()
    receiver = module.WebhookReceiver(("127.0.0.1", 0), secret, log=lambda line: None).start()
    try:
        url = f"http://127.0.0.1:{receiver.server_address[1]}/webhooks"
        forged = signing.headers([signing.new_secret()], "evt_1", time.time(), body)
        assert httpx.post(url, content=body, headers=forged).status_code == 400
        stale = signing.headers([secret], "evt_1", time.time() - 3600, body)
        assert httpx.post(url, content=body, headers=stale).status_code == 400
        assert receiver.events.empty()
        good = signing.headers([secret], "evt_1", time.time(), body)
        assert httpx.post(url, content=body, headers=good).status_code == 204
        assert httpx.post(url, content=body, headers=good).status_code == 204  # delivered twice
    finally:
        receiver.shutdown()
        receiver.server_close()

    copy = module.LocalCopy(tmp_path / "bands.json")
    copy.data = {"clinic_id": "c", "after_seq": 0, "till_stale": False,
                 "items": {"i": {"name": "X", "band": "low"}}}
    lines = []
    sync = module.BandSync(None, "c", copy, log=lines.append)
    sync.receive(receiver.events.get_nowait(), "webhook")
    sync.receive(receiver.events.get_nowait(), "webhook")
    assert sync.applied["webhook"] == 1 and sync.duplicates == 1 and copy.data["items"] == {}
    assert json.loads((tmp_path / "bands.json").read_text())["after_seq"] == 1


def test_follow_applies_webhooks_as_they_come_until_interrupted(world, testapp, served, sandbox, tmp_path):
    workspace_id, clinic_id, key = sandbox
    port = free_port()
    _, secret = world.webhook(workspace_id=workspace_id, mode="test", url=f"http://127.0.0.1:{port}/webhooks")
    command = [sys.executable, "-u", str(EXAMPLES / "sync_inventory_bands.py"), "--base-url", served, "--key", key,
               "--state", str(tmp_path / "bands.json"), "--listen", f"127.0.0.1:{port}", "--webhook-secret", secret,
               "--follow", "--poll", "0.5"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as follower:
        try:
            output = _Lines(follower.stdout)
            lines = output.within(seconds=60)
            assert any(line.startswith("receiving webhooks") for line in lines)
            testapp.post_json(f"/v1/test_helpers/clinics/{clinic_id}/stock/set",
                              {"item_id": str(SANDBOX_ITEM_IDS["amoxicillin-500"]), "quantity": 0},
                              headers={"Authorization": f"Bearer {key}"})
            applied = next((line for line in lines if line.startswith("webhook seq")), "nothing applied in time")
            assert applied.startswith("webhook seq 1 inventory.availability.changed: Amoxicillin")
            follower.send_signal(signal.SIGINT)  # Ctrl-C: the copy is saved and summarised
            rest = "".join(output.within(seconds=30))
            assert follower.wait(timeout=30) == 0, follower.stderr.read()
        finally:
            if follower.poll() is None:
                follower.kill()
    assert "applied from webhooks: 1, from the feed: 0" in rest and "matches the service: yes" in rest
