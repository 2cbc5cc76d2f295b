"""The outbox: atomic with the change, recorded only while some endpoint would hear of it, never out of
seq order under concurrent writers."""

import random
import threading
import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.events.models import Event, EventCounter
from clinicrecords.events.outbox import emit
from tests.events.support import emit_events

NO_DELIVERIES = ["listing.freshness.changed"]  # an endpoint that records but is sent none of these tests' events


def _feed(testapp, clinic_id, headers, **params):
    return testapp.get(f"/v1/clinics/{clinic_id}/events", params=params, headers=headers).json


def _clinic_with_key(world, webhook=True):
    clinic_id = world.clinic()
    if webhook:
        world.webhook(clinic_id=clinic_id, types=NO_DELIVERIES)
    return clinic_id, {"Authorization": f"Bearer {world.key(clinic_id=clinic_id)}"}


def _count(world, clinic_id, model):
    with world.db() as db:
        bind_to_clinic(db, clinic_id)
        return db.scalar(select(func.count()).select_from(model))


def test_a_committed_change_has_its_event(world, testapp):
    clinic_id, headers = _clinic_with_key(world)
    [event] = emit_events(world, clinic_id, data={"id": "x"})
    assert event.seq == 1
    [shown] = _feed(testapp, clinic_id, headers)["events"]
    assert shown == {"id": str(event.id), "type": "inventory.item.created", "clinic_id": str(clinic_id),
                     "subject_id": str(event.subject_id), "seq": 1, "data": {"id": "x"},
                     "created_at": event.created_at.isoformat()}


def test_a_rolled_back_change_leaves_no_event_and_no_gap(world, testapp):
    clinic_id, headers = _clinic_with_key(world)
    with pytest.raises(RuntimeError):
        with world.db() as db:
            bind_to_clinic(db, clinic_id)
            assert emit(db, clinic_id, "inventory.item.created", uuid.uuid4(), {}) is not None
            raise RuntimeError("the change failed after its event was written")
    assert _feed(testapp, clinic_id, headers)["events"] == []
    [event] = emit_events(world, clinic_id)
    assert event.seq == 1


def test_no_webhook_no_events_and_no_back_fill(world, testapp):
    clinic_id, headers = _clinic_with_key(world, webhook=False)
    assert emit_events(world, clinic_id, 3) == [None, None, None]
    assert _count(world, clinic_id, Event) == 0
    assert _count(world, clinic_id, EventCounter) == 0, "no lock is taken when nothing is recorded"
    world.webhook(clinic_id=clinic_id, types=NO_DELIVERIES)
    assert _feed(testapp, clinic_id, headers) == {"events": [], "next_after": 0}
    [event] = emit_events(world, clinic_id)
    assert [e["seq"] for e in _feed(testapp, clinic_id, headers)["events"]] == [event.seq] == [1]


def test_a_connected_organization_with_an_endpoint_switches_recording_on(world):
    connected = world.connected()
    unconnected = world.clinic()
    assert emit_events(world, connected.clinic_id) == [None]
    world.webhook(workspace_id=connected.workspace_id, mode="live", types=NO_DELIVERIES)
    assert emit_events(world, connected.clinic_id)[0] is not None
    assert emit_events(world, unconnected) == [None]
    world.revoke_connection(connected.workspace_id, connected.clinic_id)
    assert emit_events(world, connected.clinic_id) == [None]


def test_modes_do_not_cross(world):
    connected = world.connected()
    world.webhook(workspace_id=connected.workspace_id, mode="test", types=NO_DELIVERIES)
    assert emit_events(world, connected.clinic_id) == [None], "a test endpoint never hears of a real clinic"
    assert emit_events(world, connected.sandbox_clinic_id)[0] is not None
    other = world.connected()
    world.webhook(workspace_id=other.workspace_id, mode="live", types=NO_DELIVERIES)
    assert emit_events(world, other.sandbox_clinic_id) == [None], "a live endpoint never hears of the sandbox"


def test_unknown_types_and_large_data_are_programming_errors(world):
    clinic_id, _ = _clinic_with_key(world)
    with pytest.raises(ValueError, match="unknown event type"):
        emit_events(world, clinic_id, type_="patient.updated")
    with pytest.raises(ValueError, match="small object"):
        emit_events(world, clinic_id, data={"record": "x" * 2000})


@pytest.mark.commits  # writers commit from threads of their own while the reader follows the feed
def test_concurrent_writers_never_make_a_reader_skip_an_event(world, testapp):
    """Many writers (some rolling back) while a reader follows the feed over HTTP: the reader sees every
    committed event exactly once, seqs without gaps, and never a new event at or below one it has passed."""
    clinic_id, headers = _clinic_with_key(world)
    committed, errors = [], []
    writers_done = threading.Event()
    guard = threading.Lock()

    def writer(seed):
        rng = random.Random(seed)
        for _ in range(15):
            try:
                with world.db() as db:
                    bind_to_clinic(db, clinic_id)
                    ids = [emit(db, clinic_id, "inventory.item.updated", uuid.uuid4(), {"id": str(seed)}).id
                           for _ in range(rng.randint(1, 3))]
                    threading.Event().wait(rng.uniform(0, 0.01))  # widen the window between seq and commit
                    if rng.random() < 0.3:
                        raise RuntimeError("rolled back")
                with guard:
                    committed.extend(ids)
            except RuntimeError:
                pass
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)

    seen, last = [], 0

    def read_once():
        nonlocal last
        page = _feed(testapp, clinic_id, headers, after_seq=last, limit=7)
        for event in page["events"]:
            assert event["seq"] == last + 1, f"after seq {last} the reader got {event['seq']}"
            last = event["seq"]
            seen.append(event["id"])
        assert page["next_after"] == last

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        read_once()
    for thread in threads:
        thread.join()
    writers_done.set()
    read_once()
    while True:
        before = last
        read_once()
        if last == before:
            break
    assert errors == []
    assert len(committed) > 20
    assert sorted(seen) == sorted(map(str, committed))
    assert len(seen) == len(set(seen))
