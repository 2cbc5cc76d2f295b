"""A workspace's month as a billing basis: requests (live and test), connected clinics, the paid plan's
allowance (testing.ini: 5 requests, 1 clinic) and the overage, read with `usage show` and `usage export`, and
by other contexts through IUsageService."""

import datetime
import uuid

import pytest

from clinicrecords.access.usage import IUsageService, MonthUsage
from tests.access.helpers import admin, bearer
from tests.common.cli import ok, refused
from tests.events.support import Receiver, emit_events


def _this_month():
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m")


def _show(workspace_id, *month):
    return ok("usage", "show", "--workspace", workspace_id, *month)


def test_usage_counts_each_workspace_request_per_mode(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    live, test = world.key(workspace_id=workspace_id, mode="live"), world.key(workspace_id=workspace_id, mode="test")
    for _ in range(3):
        testapp.get("/v1/me", headers=bearer(live))
    testapp.get("/v1/connections", headers=bearer(test))
    # Failed answers are requests too: only invalid keys and 429s are not counted.
    testapp.get(f"/v1/clinics/{uuid.uuid4()}/patients", headers=bearer(test), status=403)
    testapp.get("/v1/me", headers={"Authorization": "Bearer ehr_live_0123456789abcdef_" + "0" * 48}, status=401)
    assert _show(workspace_id) == {
        "workspace_id": str(workspace_id), "month": _this_month(), "plan": "paid", "billable": True,
        "requests": 5, "live": 3, "test": 2, "connected_clinics": 0,
        "included": {"requests": 5, "connected_clinics": 1}, "overage": {"requests": 0, "connected_clinics": 0}}


def test_other_months_are_counted_apart(world, testapp):
    workspace_id, _ = world.workspace()
    testapp.get("/v1/me", headers=bearer(world.key(workspace_id=workspace_id, mode="live")))
    result = _show(workspace_id, "--month", "2020-02")
    assert (result["month"], result["requests"]) == ("2020-02", 0)


def test_a_live_key_over_the_allowance_keeps_working_and_the_overage_is_counted(world, testapp):
    workspace_id, _ = world.workspace(verified=True, paid=True, terms_accepted=True)
    for clinic in (world.clinic(), world.clinic()):
        world.grant(workspace_id, clinic)
    live, test = world.key(workspace_id=workspace_id, mode="live"), world.key(workspace_id=workspace_id, mode="test")
    for _ in range(8):
        testapp.get("/v1/connections", headers=bearer(live), status=200)
    for _ in range(4):
        testapp.get("/v1/me", headers=bearer(test), status=200)
    result = _show(workspace_id)
    assert (result["live"], result["test"], result["connected_clinics"]) == (8, 4, 2)
    # Live requests are the basis: the 4 test requests add nothing to the overage.
    assert result["overage"] == {"requests": 3, "connected_clinics": 1}


def test_rate_limited_requests_are_not_counted_and_live_paid_workspaces_are_never_cut_off(world, testapp):
    workspace_id, _ = world.workspace(verified=True, paid=True, terms_accepted=True)
    limited = world.key(workspace_id=workspace_id, mode="live", rate_limit=1)
    testapp.get("/v1/me", headers=bearer(limited), status=200)
    testapp.get("/v1/me", headers=bearer(limited), status=429)
    # No monthly cap exists: a busy paid workspace keeps being answered and counted.
    busy = world.key(workspace_id=workspace_id, mode="live")
    for _ in range(20):
        testapp.get("/v1/me", headers=bearer(busy), status=200)
    result = _show(workspace_id)
    assert result["live"] == 21 and result["overage"]["requests"] == 16


def test_a_sandbox_plan_workspace_is_not_billed(world, testapp):
    workspace_id, sandbox_id = world.workspace(paid=False)
    clinic = world.clinic()
    world.grant(workspace_id, clinic)
    # Its live key reaches nothing (the refusal is still a request); its test key reaches the sandbox.
    live = world.key(workspace_id=workspace_id, mode="live")
    refused_answer = testapp.get(f"/v1/clinics/{clinic}/patients", headers=bearer(live), status=403)
    assert refused_answer.json["code"] == "workspace_plan_required"
    test = world.key(workspace_id=workspace_id, mode="test")
    for _ in range(7):
        testapp.get(f"/v1/clinics/{sandbox_id}/patients", headers=bearer(test), status=200)
    result = _show(workspace_id)
    assert (result["plan"], result["billable"], result["live"], result["test"]) == ("sandbox", False, 1, 7)
    assert result["included"] == {"requests": 0, "connected_clinics": 0}
    assert result["overage"] == {"requests": 0, "connected_clinics": 0}


def test_change_feed_reads_count_as_requests_and_webhook_deliveries_do_not(world, testapp, connected):
    with Receiver() as receiver:
        world.webhook(workspace_id=connected.workspace_id, mode="live", url=receiver.url)
        emit_events(world, connected.clinic_id, count=3)
        assert len(receiver.requests) == 3, "three webhook deliveries"
    assert _show(connected.workspace_id)["live"] == 0
    feed = f"/v1/clinics/{connected.clinic_id}/events"
    for _ in range(2):
        assert len(testapp.get(feed, headers=connected.headers).json["events"]) == 3
    testapp.get(feed, {"limit": "0"}, headers=connected.headers, status=400)
    assert _show(connected.workspace_id)["live"] == 3


def test_usage_export_lists_every_workspace_to_invoice(world, testapp):
    paid_idle, _ = world.workspace()
    paid_busy, _ = world.workspace()
    for _ in range(6):
        testapp.get("/v1/me", headers=bearer(world.key(workspace_id=paid_busy, mode="live")))
    sandbox_idle, sandbox_clinic = world.workspace(paid=False)
    testapp.get(f"/v1/clinics/{sandbox_clinic}/patients",
                headers=bearer(world.key(workspace_id=sandbox_idle, mode="test")))
    sandbox_with_live, _ = world.workspace(paid=False)
    testapp.get("/v1/me", headers=bearer(world.key(workspace_id=sandbox_with_live, mode="live")))

    exported = ok("usage", "export", "--month", _this_month())
    assert exported["month"] == _this_month()
    ids = [entry["workspace_id"] for entry in exported["workspaces"]]
    assert ids == sorted(ids)
    entries = {entry["workspace_id"]: entry for entry in exported["workspaces"]}
    # Every paid workspace (even without usage) and every workspace that used live access; each entry is
    # exactly what `usage show` prints for it.
    for workspace_id in (paid_idle, paid_busy, sandbox_with_live):
        assert entries[str(workspace_id)] == _show(workspace_id)
    assert str(sandbox_idle) not in entries
    assert entries[str(paid_busy)]["overage"]["requests"] == 1
    assert entries[str(sandbox_with_live)]["billable"] is False
    # A month before any of them existed lists none of them.
    assert not {str(w) for w in (paid_idle, paid_busy, sandbox_with_live)} & {
        e["workspace_id"] for e in ok("usage", "export", "--month", "2020-02")["workspaces"]}


def test_other_contexts_find_the_usage_service_by_interface(world, testapp):
    workspace_id, _ = world.workspace()
    testapp.get("/v1/me", headers=bearer(world.key(workspace_id=workspace_id, mode="live")))
    with world.request() as request:
        usage = request.find_service(IUsageService).month_usage(workspace_id, datetime.date.today())
    assert isinstance(usage, MonthUsage)
    assert (usage.workspace_id, usage.live_requests, usage.included_requests, usage.overage_requests) == (
        workspace_id, 1, 5, 0)


def test_clinic_keys_are_not_counted_against_any_workspace(world, testapp, engine):
    from sqlalchemy import func, select

    from clinicrecords.access.models import WorkspaceUsage

    with engine.connect() as connection:
        before = connection.execute(select(func.coalesce(func.sum(WorkspaceUsage.requests), 0))).scalar()
    testapp.get("/v1/me", headers=bearer(world.key(clinic_id=world.clinic())))
    with engine.connect() as connection:
        assert connection.execute(select(func.coalesce(func.sum(WorkspaceUsage.requests), 0))).scalar() == before


@pytest.mark.parametrize("argv", [
    ("usage", "show"),
    ("usage", "show", "--workspace", "nope"),
    ("usage", "show", "--workspace", str(uuid.uuid4())),
    ("usage", "show", "--workspace", "{workspace}", "--month", "2024-13"),
    ("usage", "show", "--workspace", "{workspace}", "--month", "2024"),
    ("usage", "export"),
    ("usage", "export", "--month", "2024-00"),
    ("usage", "export", "--month", "last"),
])
def test_usage_commands_refuse_bad_input(world, argv):
    workspace_id, _ = world.workspace()
    status, result, err = admin(*(a.format(workspace=workspace_id) for a in argv))
    assert status == 2 and result is None


def test_an_unknown_workspace_is_named(world):
    missing = uuid.uuid4()
    assert str(missing) in refused("usage", "show", "--workspace", missing)
