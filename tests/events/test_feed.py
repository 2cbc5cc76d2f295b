"""GET /v1/clinics/{clinic_id}/events: parameters, the exact answer shape, permissions now, retention, errors."""

import datetime
import uuid

import pytest
from sqlalchemy import func, select, update

from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.events.models import Event
from clinicrecords.events.tasks import prune_events
from tests.events.support import emit_events

NO_DELIVERIES = ["listing.freshness.changed"]


def _url(clinic_id):
    return f"/v1/clinics/{clinic_id}/events"


@pytest.fixture
def feed_clinic(world):
    """A connected clinic with recording on, and the connected organization's headers."""
    connected = world.connected()
    world.webhook(clinic_id=connected.clinic_id, types=NO_DELIVERIES)
    return connected


def test_answer_shape_and_catch_up(world, testapp, feed_clinic):
    events = emit_events(world, feed_clinic.clinic_id, 5)
    page = testapp.get(_url(feed_clinic.clinic_id), params={"limit": 2}, headers=feed_clinic.headers).json
    assert set(page) == {"events", "next_after"}
    assert [e["seq"] for e in page["events"]] == [1, 2] and page["next_after"] == 2
    handled, after = [], 0
    while True:
        page = testapp.get(_url(feed_clinic.clinic_id), params={"after_seq": after, "limit": 2},
                           headers=feed_clinic.headers).json
        if page["next_after"] == after:
            assert page["events"] == []
            break
        handled += [e["id"] for e in page["events"]]
        after = page["next_after"]
    assert handled == [str(e.id) for e in events]
    empty = testapp.get(_url(feed_clinic.clinic_id), params={"after_seq": 99}, headers=feed_clinic.headers).json
    assert empty == {"events": [], "next_after": 99}


def test_default_and_largest_limits(world, testapp, feed_clinic):
    emit_events(world, feed_clinic.clinic_id, 205)
    assert len(testapp.get(_url(feed_clinic.clinic_id), headers=feed_clinic.headers).json["events"]) == 50
    page = testapp.get(_url(feed_clinic.clinic_id), params={"limit": 200}, headers=feed_clinic.headers).json
    assert len(page["events"]) == 200 and page["next_after"] == 200
    page = testapp.get(_url(feed_clinic.clinic_id), params={"limit": 1, "after_seq": 0},
                       headers=feed_clinic.headers).json
    assert [e["seq"] for e in page["events"]] == [1]


@pytest.mark.parametrize("params, pointer", [
    ({"limit": "0"}, "/limit"), ({"limit": "201"}, "/limit"), ({"limit": "-5"}, "/limit"),
    ({"limit": "ten"}, "/limit"), ({"limit": "2.5"}, "/limit"), ({"limit": ""}, "/limit"),
    ({"after_seq": "-1"}, "/after_seq"), ({"after_seq": "abc"}, "/after_seq"),
    ({"after_seq": str(2**63)}, "/after_seq"), ({"after_seq": "1e3"}, "/after_seq"),
    ({"starting_after": "x"}, "/starting_after"), ({"cursor": "x"}, "/cursor"),
    ([("limit", "5"), ("limit", "6")], "/limit"),
])
def test_bad_parameters_are_400_invalid_request(testapp, feed_clinic, params, pointer):
    response = testapp.get(_url(feed_clinic.clinic_id), params=params, headers=feed_clinic.headers, status=400)
    assert response.json["code"] == "invalid_request"
    assert {e["pointer"] for e in response.json["errors"]} == {pointer}


def test_errors_of_rule_7(world, testapp, feed_clinic):
    stranger = world.clinic()
    for clinic in (stranger, uuid.uuid4(), "not-a-uuid"):
        response = testapp.get(_url(clinic), headers=feed_clinic.headers, status=404)
        assert response.json["code"] == "not_found"
    test_key = world.key(workspace_id=feed_clinic.workspace_id, mode="test")
    response = testapp.get(_url(feed_clinic.clinic_id), headers={"Authorization": f"Bearer {test_key}"},
                           status=403)
    assert response.json["code"] == "sandbox_only"
    assert testapp.get(_url(feed_clinic.clinic_id), status=401).json["code"] == "invalid_key"


def test_no_single_permission_is_needed_and_each_type_needs_its_own(world, testapp):
    narrow = world.connected(scopes={"patients:read"})
    world.webhook(clinic_id=narrow.clinic_id, types=NO_DELIVERIES)
    emit_events(world, narrow.clinic_id, 2)
    assert testapp.get(_url(narrow.clinic_id), headers=narrow.headers).json == {"events": [], "next_after": 0}


def test_removing_a_permission_hides_earlier_events_of_that_type(world, testapp):
    connected = world.connected(scopes={"inventory.items:read", "inventory.availability:read"})
    world.webhook(clinic_id=connected.clinic_id, types=NO_DELIVERIES)
    emit_events(world, connected.clinic_id, type_="inventory.item.created")
    emit_events(world, connected.clinic_id, type_="inventory.availability.changed",
                data={"id": str(uuid.uuid4()), "band": "low", "previous_band": "in_stock"})
    emit_events(world, connected.clinic_id, type_="listing.freshness.changed",
                data={"stale": True, "since": "2025-01-01T00:00:00+00:00"})
    types = [e["type"] for e in testapp.get(_url(connected.clinic_id), headers=connected.headers).json["events"]]
    assert types == ["inventory.item.created", "inventory.availability.changed", "listing.freshness.changed"]
    world.grant(connected.workspace_id, connected.clinic_id, {"inventory.items:read"})
    page = testapp.get(_url(connected.clinic_id), headers=connected.headers).json
    assert [e["type"] for e in page["events"]] == ["inventory.item.created"]
    # A narrowed key is narrowed in the feed too, whatever the connection grants.
    world.grant(connected.workspace_id, connected.clinic_id, {"inventory.items:read", "inventory.availability:read"})
    narrow_key = world.key(workspace_id=connected.workspace_id, mode="live", scopes={"inventory.availability:read"})
    page = testapp.get(_url(connected.clinic_id), headers={"Authorization": f"Bearer {narrow_key}"}).json
    assert [e["seq"] for e in page["events"]] == [2, 3]


def test_a_submission_decision_is_seen_only_by_its_sender_with_the_kind_s_permission(world, testapp):
    sender = world.connected()
    clinic_id = sender.clinic_id
    other_workspace, _ = world.workspace()
    world.grant(other_workspace, clinic_id)
    other_key = world.key(workspace_id=other_workspace, mode="live")
    no_allergies = world.key(workspace_id=sender.workspace_id, mode="live", scopes={"conditions:write"})
    clinic_key = world.key(clinic_id=clinic_id)
    world.webhook(clinic_id=clinic_id, types=NO_DELIVERIES)
    [event] = emit_events(world, clinic_id, type_="submission.decided", audience_id=sender.workspace_id,
                          data={"submission_id": str(uuid.uuid4()), "resource_type": "allergy",
                                "review_status": "confirmed"})
    [shown] = testapp.get(_url(clinic_id), headers=sender.headers).json["events"]
    assert shown["id"] == str(event.id) and set(shown) == {"id", "type", "clinic_id", "subject_id", "seq", "data",
                                                            "created_at"}
    assert str(sender.workspace_id) not in str(shown)
    for key in (other_key, no_allergies, clinic_key):
        assert testapp.get(_url(clinic_id), headers={"Authorization": f"Bearer {key}"}).json["events"] == []


def test_a_patient_import_finishing_is_for_the_clinic_s_own_key(world, testapp):
    connected = world.connected()
    world.webhook(clinic_id=connected.clinic_id, types=NO_DELIVERIES)
    emit_events(world, connected.clinic_id, type_="patient_import.finished", audience_id=connected.clinic_id,
                data={"id": str(uuid.uuid4()), "status": "succeeded"})
    clinic_headers = {"Authorization": f"Bearer {world.key(clinic_id=connected.clinic_id)}"}
    assert len(testapp.get(_url(connected.clinic_id), headers=clinic_headers).json["events"]) == 1
    assert testapp.get(_url(connected.clinic_id), headers=connected.headers).json["events"] == []


def test_a_sandbox_feed_with_a_test_key(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    world.webhook(workspace_id=workspace_id, mode="test", types=NO_DELIVERIES)
    emit_events(world, sandbox_id, 2)
    key = world.key(workspace_id=workspace_id, mode="test")
    page = testapp.get(_url(sandbox_id), headers={"Authorization": f"Bearer {key}"}).json
    assert page["next_after"] == 2


def test_events_are_kept_30_days_and_pruned_by_the_periodic_task(world, testapp, feed_clinic):
    emit_events(world, feed_clinic.clinic_id, 3)
    old = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=30, minutes=1)
    with world.db() as db:
        bind_to_clinic(db, feed_clinic.clinic_id)
        db.execute(update(Event).where(Event.seq <= 2).values(created_at=old))
    page = testapp.get(_url(feed_clinic.clinic_id), headers=feed_clinic.headers).json
    assert [e["seq"] for e in page["events"]] == [3], "0 starts at the oldest event still kept"
    prune_events()
    with world.db() as db:
        bind_to_clinic(db, feed_clinic.clinic_id)
        assert db.scalars(select(Event.seq)).all() == [3]
        assert db.scalar(select(func.count()).select_from(Event)) == 1
