"""What a kick-off refuses beyond its parameters: a `_since` the calendar cannot hold (400, nothing queued), more
than `exports.max_kickoffs_per_hour` kick-offs of one key in an hour (429 with Retry-After; cancelled ones count),
and an Idempotency-Key of another key of the same owner replayed to a key that may not read its types (the
kick-off's own rules run before any replay)."""

import pytest
import webtest
from sqlalchemy import func, select

from clinicrecords import tasks
from clinicrecords.settings import read

from clinicrecords.exports.models import ExportJob
from tests.common.clinical import headers, sandbox
from tests.exports.conftest import run_queued
from tests.exports.flow import FHIR, kick_off, outcome_code, status_url


@pytest.mark.parametrize("since", ["0001-01-01T00:00:00%2B14:00", "9999-12-31T23:59:59-14:00"])
def test_a_since_outside_the_calendar_is_400_and_queues_nothing(testapp, world, since):
    clinic_id, key = sandbox(world)
    refused = kick_off(testapp, clinic_id, key, f"?_type=Patient&_since={since}", status=400)
    assert refused.json["resourceType"] == "OperationOutcome"
    assert "outside the years 1 to 9999" in refused.json["issue"][0]["diagnostics"]
    with world.db() as db:
        assert db.scalar(select(func.count()).select_from(ExportJob).where(ExportJob.clinic_id == clinic_id)) == 0
    kick_off(testapp, clinic_id, key, "?_type=Patient&_since=0001-01-01T00:00:00Z")  # the calendar's first instant


@pytest.fixture
def capped_app(make_app, settings):
    """A real (in-memory) queue, as `queued_app`, and four kick-offs an hour."""
    wsgi_app = make_app(**{"exports.max_kickoffs_per_hour": "4", "huey.immediate": "false", "huey.backend": "memory"})
    yield webtest.TestApp(wsgi_app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    tasks.configure(read(settings))


def test_a_key_kicks_off_at_most_so_many_exports_an_hour(capped_app, world):
    app = capped_app
    workspace_id, clinic_id = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    for _ in range(2):
        url = status_url(kick_off(app, clinic_id, key, "?_type=Patient"))
        app.delete(url, headers=headers(key), status=202)  # a cancelled export still counts
    for _ in range(2):
        kick_off(app, clinic_id, key, "?_type=Patient")
    run_queued()  # finished: none is running, the hour's count alone refuses
    refused = kick_off(app, clinic_id, key, "?_type=Patient", status=429)
    assert refused.content_type == FHIR
    assert outcome_code(refused) == "too_many_export_kickoffs"
    assert 0 < int(refused.headers["Retry-After"]) <= 3600
    # Another key of the same workspace has its own allowance.
    kick_off(app, clinic_id, world.key(workspace_id=workspace_id, mode="test"), "?_type=Patient")


def test_another_keys_idempotency_key_is_not_replayed_past_the_scope_check(testapp, world):
    connected = world.connected(scopes={"patients:read", "conditions:read"})
    narrow = world.key(workspace_id=connected.workspace_id, mode="live", scopes={"conditions:read"})
    first = kick_off(testapp, connected.clinic_id, connected.key, "?_type=Patient", **{"Idempotency-Key": "shared"})
    assert first.status_int == 202
    refused = kick_off(testapp, connected.clinic_id, narrow, "?_type=Patient", status=403,
                       **{"Idempotency-Key": "shared"})
    assert outcome_code(refused) == "scope_missing" and "Idempotent-Replayed" not in refused.headers
    # The key that kicked it off still replays its own answer.
    again = kick_off(testapp, connected.clinic_id, connected.key, "?_type=Patient", **{"Idempotency-Key": "shared"})
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Content-Location"] == first.headers["Content-Location"]
