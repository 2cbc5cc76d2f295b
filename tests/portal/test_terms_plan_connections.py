"""API Terms acceptance, plan and usage (with the per-day chart), connections as one table."""

import datetime
import uuid

from sqlalchemy import select

from clinicrecords.access.models import Workspace, WorkspaceDailyUsage
from clinicrecords.portal.developer.plan.chart import bars
from clinicrecords.identity.models import TermsAcceptance
from clinicrecords.identity.services import terms_accepted as has_accepted
from tests.portal.helpers import browser, create_key, error_summary, secret_of, submit, with_workspace


def test_an_owner_accepts_the_current_terms_recording_version_member_and_time(app, engine):
    client, workspace_id = with_workspace(app)
    page = client.get(f"/portal/workspaces/{workspace_id}/terms")
    assert "API Terms, version 2026-01" in page.text and "Keys are secrets" in page.text
    refused = submit(page, "terms", status=400)
    assert error_summary(refused) == ["Tick the box to accept the API Terms for your organization"]
    done = submit(page, "terms", agree="yes", status=303)
    assert "accepted=1" in done.location
    assert "Your workspace accepted this version" in client.get(done.location).text
    with engine.connect() as connection:
        row = connection.execute(select(TermsAcceptance).where(
            TermsAcceptance.workspace_id == uuid.UUID(workspace_id))).one()
        accepted = connection.scalar(select(has_accepted(uuid.UUID(workspace_id))))
    assert row.version == "2026-01" and row.account_id is not None and accepted is True
    assert datetime.datetime.now(datetime.UTC) - row.accepted_at < datetime.timedelta(minutes=1)
    assert "Accepted the API Terms of Use" in client.get(f"/portal/workspaces/{workspace_id}/activity").text


def test_accepting_a_page_of_an_outdated_version_records_nothing(app, engine):
    client, workspace_id = with_workspace(app)
    form = client.get(f"/portal/workspaces/{workspace_id}/terms").forms["terms"]
    form["agree"] = "yes"
    form["version"].force_value("2025-06")
    answer = form.submit(status=400)
    assert "These terms have changed" in error_summary(answer)[0]
    with engine.connect() as connection:
        assert connection.scalar(select(TermsAcceptance.id).where(
            TermsAcceptance.workspace_id == uuid.UUID(workspace_id))) is None


def test_a_new_version_asks_again(app, world):
    client, workspace_id = with_workspace(app)
    with world.db() as db:
        db.add(TermsAcceptance(workspace_id=uuid.UUID(workspace_id), version="2025-06",
                               accepted_by_name="operator"))
    page = client.get(f"/portal/workspaces/{workspace_id}/terms")
    assert "Your workspace accepted version 2025-06" in page.text and "terms" in page.forms


def test_usage_counts_this_months_requests_per_day_against_the_allowance(make_app, world, engine):
    app = make_app(**{"plans.paid.included_requests": "3", "plans.paid.included_clinics": "0"})
    client, workspace_id = with_workspace(app)
    world.set_workspace(uuid.UUID(workspace_id), verified=True, paid=True, terms_accepted=True)
    live = world.key(workspace_id=uuid.UUID(workspace_id), mode="live")
    test = secret_of(create_key(client, workspace_id))
    api = browser(app)
    for key, times in ((live, 5), (test, 2)):
        for _ in range(times):
            api.get("/v1/me", headers={"Authorization": f"Bearer {key}"})
    page = client.get(f"/portal/workspaces/{workspace_id}/plan")
    card = page.html.find("h2", string="Live requests").find_parent(class_="card").get_text(" ", strip=True)
    assert "5 of 3 included" in card and "never billed): 2" in card and "Overage: 2" in card
    assert "never cut off" in page.text
    today = datetime.datetime.now(datetime.UTC).date()
    with engine.connect() as connection:
        daily = connection.scalars(select(WorkspaceDailyUsage.requests).where(
            WorkspaceDailyUsage.workspace_id == uuid.UUID(workspace_id), WorkspaceDailyUsage.day == today)).all()
    assert sorted(daily) == [2, 5]  # per mode
    rects = page.html.find("svg").find_all("rect")
    assert len(rects) == today.day and rects[-1].find("title").get_text() == f"{today:%b %d}: 7 requests"


def test_the_chart_scales_bars_to_the_busiest_day():
    days = [datetime.date(2031, 3, day) for day in (1, 2, 3)]
    found, top = bars(list(zip(days, (0, 50, 100))))
    assert top == 100 and [bar.height for bar in found][0] == 0
    assert found[2].height == 2 * found[1].height and found[2].y < found[1].y
    assert bars([]) == ([], 0)


def test_the_owner_chooses_the_plan(app, engine):
    client, workspace_id = with_workspace(app)
    page = client.get(f"/portal/workspaces/{workspace_id}/plan")
    token = page.html.find("input", attrs={"name": "csrf_token"})["value"]
    bad = client.post(f"/portal/workspaces/{workspace_id}/plan", {"csrf_token": token, "plan": "gold"}, status=400)
    assert error_summary(bad) == ["Choose the sandbox or the paid plan"]
    submit(page, "plan", plan="paid", status=303)
    with engine.connect() as connection:
        assert connection.scalar(select(Workspace.plan).where(Workspace.id == uuid.UUID(workspace_id))) == "paid"
    assert "Changed the plan to paid" in client.get(f"/portal/workspaces/{workspace_id}/activity").text
    client.post(f"/portal/workspaces/{workspace_id}/plan", {"plan": "sandbox"}, status=403)  # no CSRF token


def test_connections_as_clinics_by_permissions(app, world):
    client, workspace_id = with_workspace(app)
    assert "No clinic has connected" in client.get(f"/portal/workspaces/{workspace_id}/connections").text
    harbour = world.clinic("Harbour Clinic")
    hill = world.clinic("Hill Clinic")
    expiry = datetime.datetime(2040, 1, 31, tzinfo=datetime.UTC)
    world.grant(uuid.UUID(workspace_id), harbour, {"patients:read", "allergies:read"}, expires_at=expiry)
    world.grant(uuid.UUID(workspace_id), hill, {"patients:read"})
    world.revoke_connection(uuid.UUID(workspace_id), hill)
    table = client.get(f"/portal/workspaces/{workspace_id}/connections").html.find("table")
    columns = [th.get_text() for th in table.find("thead").find_all("th")]
    assert columns == ["Clinic", "Status", "Connected", "Expires", "allergies:read", "patients:read"]
    rows = {row.find("th").get_text(" ", strip=True).split()[0]: row for row in table.find("tbody").find_all("tr")}
    harbour_cells = [td.get_text(strip=True) for td in rows["Harbour"].find_all("td")]
    assert harbour_cells[0] == "active" and harbour_cells[2] == "2040-01-31" and harbour_cells[3:] == ["✓", "✓"]
    hill_cells = [td.get_text(strip=True) for td in rows["Hill"].find_all("td")]
    assert hill_cells[0] == "revoked" and hill_cells[3:] == ["not granted", "✓"]
