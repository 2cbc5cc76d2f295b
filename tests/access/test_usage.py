"""The monthly request counter per workspace, read by operators with `usage show`."""

import datetime
import uuid

import pytest

from tests.access.helpers import admin, bearer


def _this_month():
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m")


def test_usage_counts_each_workspace_request_per_mode(world, testapp):
    workspace_id, sandbox_id = world.workspace()
    live, test = world.key(workspace_id=workspace_id, mode="live"), world.key(workspace_id=workspace_id, mode="test")
    for _ in range(3):
        testapp.get("/v1/me", headers=bearer(live))
    testapp.get("/v1/connections", headers=bearer(test))
    # Failed answers are requests too: only invalid keys and 429s are not counted.
    testapp.get(f"/v1/clinics/{uuid.uuid4()}/patients", headers=bearer(test), status=403)
    testapp.get("/v1/me", headers={"Authorization": "Bearer ehr_live_0123456789abcdef_" + "0" * 48}, status=401)
    status, result, _ = admin("usage", "show", "--workspace", str(workspace_id))
    assert status == 0
    assert result == {"workspace_id": str(workspace_id), "month": _this_month(), "requests": 5, "live": 3,
                      "test": 2, "connected_clinics": 0}


def test_other_months_are_counted_apart(world, testapp):
    workspace_id, _ = world.workspace()
    testapp.get("/v1/me", headers=bearer(world.key(workspace_id=workspace_id, mode="live")))
    status, result, _ = admin("usage", "show", "--workspace", str(workspace_id), "--month", "2020-02")
    assert (status, result["month"], result["requests"]) == (0, "2020-02", 0)


def test_rate_limited_requests_are_not_counted_and_live_paid_workspaces_are_never_cut_off(world, testapp):
    workspace_id, _ = world.workspace(verified=True, paid=True, terms_accepted=True)
    limited = world.key(workspace_id=workspace_id, mode="live", rate_limit=1)
    testapp.get("/v1/me", headers=bearer(limited), status=200)
    testapp.get("/v1/me", headers=bearer(limited), status=429)
    # No monthly cap exists: a busy paid workspace keeps being answered and counted.
    busy = world.key(workspace_id=workspace_id, mode="live")
    for _ in range(20):
        testapp.get("/v1/me", headers=bearer(busy), status=200)
    assert admin("usage", "show", "--workspace", str(workspace_id))[1]["live"] == 21


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
])
def test_usage_show_refuses_bad_input(world, argv):
    workspace_id, _ = world.workspace()
    status, result, err = admin(*(a.format(workspace=workspace_id) for a in argv))
    assert status == 2 and result is None
