"""The business profile page: submittable once the domain is verified, the review status and the reason."""

import uuid

from sqlalchemy import select

from clinicrecords.onboarding.interfaces import IBusinessProfile
from clinicrecords.onboarding.models import BusinessProfile
from tests.portal.helpers import error_summary, joined_as_developer, submit, with_workspace

PROFILE = {"legal_name": "Acme Health Ltd", "website": "https://acme.example", "country": "gb",
           "contact_email": "dev@acme.example", "intended_use": "Appointment reminders\nfor our clinics."}


def _page(client, workspace_id):
    return client.get(f"/portal/workspaces/{workspace_id}/profile")


def _stored(engine, workspace_id):
    with engine.connect() as connection:
        return connection.execute(select(BusinessProfile).where(
            BusinessProfile.workspace_id == uuid.UUID(workspace_id))).one_or_none()


def _review(world, workspace_id, approve, reason=None):
    with world.request() as request:
        request.find_service(IBusinessProfile).review(uuid.UUID(workspace_id), approve=approve, reason=reason)


def _status(page):
    return page.html.find(id="profile-status").get_text(strip=True)


def test_before_the_domain_is_verified_the_page_says_so_and_refuses(app, engine):
    client, workspace_id = with_workspace(app)
    page = _page(client, workspace_id)
    assert _status(page) == "not submitted" and "profile" not in page.forms
    assert "can be submitted once your domain is verified" in page.html.find(id="verified").get_text()
    token = page.html.find("input", attrs={"name": "csrf_token"})["value"]
    refused = client.post(f"/portal/workspaces/{workspace_id}/profile", {"csrf_token": token, **PROFILE},
                          status=400)
    assert error_summary(refused) == [
        "Verify your workspace's domain first: the profile can be submitted once it is verified"]
    assert _stored(engine, workspace_id) is None


def test_the_owner_submits_then_sees_rejection_with_its_reason_and_resubmits(app, world, engine):
    client, workspace_id = with_workspace(app)
    world.set_workspace(uuid.UUID(workspace_id), verified=True)
    page = _page(client, workspace_id)
    bad = submit(page, "profile", status=400, **{**PROFILE, "website": "ftp://acme", "country": "XX",
                                                 "legal_name": ""})
    assert error_summary(bad) == ["Legal name is required",
                                  "Website must be a web address starting with https:// (or http://)",
                                  "Country must be an ISO 3166-1 alpha-2 country code, e.g. GB or US"]
    assert bad.html.find(id="contact_email")["value"] == PROFILE["contact_email"]
    assert _stored(engine, workspace_id) is None
    done = client.get(submit(page, "profile", status=303, **PROFILE).location)
    assert "Profile submitted for review" in done.text and _status(done) == "submitted"
    row = _stored(engine, workspace_id)
    assert (row.legal_name, row.country, row.status) == ("Acme Health Ltd", "GB", "submitted")
    assert "Submitted the business profile of" in client.get(f"/portal/workspaces/{workspace_id}/activity").text

    _review(world, workspace_id, approve=False, reason="The website does not name Acme Health Ltd.")
    rejected = _page(client, workspace_id)
    assert _status(rejected) == "rejected"
    assert rejected.html.find(id="review-reason").get_text() == "The website does not name Acme Health Ltd."
    assert rejected.forms["profile"]["legal_name"].value == "Acme Health Ltd"  # resubmission starts from it
    submit(rejected, "profile", status=303, legal_name="Acme Health Limited")
    _review(world, workspace_id, approve=True)
    approved = _page(client, workspace_id)
    assert _status(approved) == "approved" and "sends the profile for review again" in approved.text
    overview = client.get(f"/portal/workspaces/{workspace_id}")
    assert overview.html.find("li", string="The business profile is approved")["class"] == ["ok"]


def test_forged_foreign_and_developer_submissions_change_nothing(app, world, engine):
    owner, workspace_id = with_workspace(app)
    world.set_workspace(uuid.UUID(workspace_id), verified=True)
    owner.post(f"/portal/workspaces/{workspace_id}/profile", PROFILE, status=403)  # no CSRF token
    developer = joined_as_developer(app, owner, workspace_id)
    page = _page(developer, workspace_id)
    assert "profile" not in page.forms and "Only an owner" in page.text
    token = page.html.find("input", attrs={"name": "csrf_token"})["value"]
    assert "Only an owner" in developer.post(f"/portal/workspaces/{workspace_id}/profile",
                                             {"csrf_token": token, **PROFILE}, status=403).text
    _, other_id = with_workspace(app, name="Other Org")
    world.set_workspace(uuid.UUID(other_id), verified=True)
    owner.get(f"/portal/workspaces/{other_id}/profile", status=404)
    owner_token = _page(owner, workspace_id).html.find("input", attrs={"name": "csrf_token"})["value"]
    owner.post(f"/portal/workspaces/{other_id}/profile", {"csrf_token": owner_token, **PROFILE}, status=404)
    assert _stored(engine, workspace_id) is None and _stored(engine, other_id) is None
