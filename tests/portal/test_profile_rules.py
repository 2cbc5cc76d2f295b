"""Decision 0048: the business profile needs a sentence of intended use, not a word, and warns when the
website is not on the workspace's verified domain (allowed: the reviewer will ask)."""

import uuid

from sqlalchemy import update

from clinicrecords.onboarding.models import WorkspaceDomain
from tests.portal.helpers import error_summary, submit, with_workspace

PROFILE = {"legal_name": "Acme Health Ltd", "country": "GB", "contact_email": "dev@acme.example",
           "intended_use": "Appointment reminders for our partner clinics."}


def _verified(app, world, domain="acme.example"):
    """A workspace whose domain is verified (the record's checks are docs/verification.md's, tested apart)."""
    client, workspace_id = with_workspace(app)
    submit(client.get(f"/portal/workspaces/{workspace_id}/domain"), "domain-form", domain=domain, status=303)
    with world.db() as db:
        db.execute(update(WorkspaceDomain).where(WorkspaceDomain.workspace_id == uuid.UUID(workspace_id))
                   .values(state="verified"))
    world.set_workspace(uuid.UUID(workspace_id), verified=True)
    return client, workspace_id


def test_a_word_is_not_an_intended_use(app, world):
    client, workspace_id = _verified(app, world)
    page = client.get(f"/portal/workspaces/{workspace_id}/profile")
    for short in ("x", "Appointments.", "We do apps"):
        refused = submit(page, "profile", status=400, **{**PROFILE, "website": "https://acme.example",
                                                         "intended_use": short})
        assert error_summary(refused) == ["Intended use must be a sentence at least (4 words or more): what your "
                                          "product does with clinics' records"]
        assert refused.html.find(id="intended_use").get_text() == short
    submit(page, "profile", status=303, **{**PROFILE, "website": "https://acme.example"})


def test_a_website_off_the_verified_domain_is_accepted_with_a_warning(app, world):
    client, workspace_id = _verified(app, world)
    page = client.get(f"/portal/workspaces/{workspace_id}/profile")
    shown = submit(page, "profile", status=303, **{**PROFILE, "website": "https://www.other-health.example/about"}
                   ).follow()
    warning = shown.html.find(id="website-warning").get_text(" ", strip=True)
    assert "www.other-health.example" in warning and "acme.example" in warning
    on_domain = submit(shown, "profile", status=303, **{**PROFILE, "website": "https://app.acme.example"}).follow()
    assert on_domain.html.find(id="website-warning") is None
