"""Every portal form, posted without its CSRF token or from another origin, is refused and changes nothing."""

import uuid

import pytest
from sqlalchemy import text

from tests.portal.helpers import create_key, secret_of, submit, with_workspace

TABLES = ("accounts", "account_links", "account_mail_requests", "sessions", "workspaces",
          "workspace_members", "invitations",
          "api_keys", "terms_acceptances", "portal_audit", "workspace_domains", "business_profiles")


def _snapshot(engine):
    """Every row of the portal's tables (and the keys and workspaces it changes), as text."""
    with engine.connect() as connection:
        return {table: sorted(map(repr, connection.execute(text(f"SELECT * FROM control.{table}")).all()))
                for table in TABLES}


def _pages(workspace_id, key_id):
    return {
        "signup": "/portal/signup", "login": "/portal/login", "logout": "/portal/",
        "password-change": "/portal/account/password", "forgot-password": "/portal/forgot-password",
        "email-change": "/portal/account/email", "workspace": "/portal/workspaces/new",
        "invite": f"/portal/workspaces/{workspace_id}/members",
        "new-key": f"/portal/workspaces/{workspace_id}/keys/new",
        "revoke": f"/portal/workspaces/{workspace_id}/keys/{key_id}/revoke",
        "roll": f"/portal/workspaces/{workspace_id}/keys/{key_id}/roll",
        "ip-allow": f"/portal/workspaces/{workspace_id}/keys/{key_id}/ip-allow",
        "terms": f"/portal/workspaces/{workspace_id}/terms", "plan": f"/portal/workspaces/{workspace_id}/plan",
        "domain-form": f"/portal/workspaces/{workspace_id}/domain",
        "check": f"/portal/workspaces/{workspace_id}/domain",
        "change-domain": f"/portal/workspaces/{workspace_id}/domain/change",
        "profile": f"/portal/workspaces/{workspace_id}/profile",
    }


FILLED = {"signup": {"email": "csrf@example.org", "password": "a long enough phrase 9"},
          "login": {"email": "x@example.org", "password": "whatever it is here"},
          "password-change": {"current_password": "correct horse battery staple 42",
                              "new_password": "another long phrase 8"},
          "forgot-password": {"email": "x@example.org"},
          "email-change": {"email": "forged@example.org", "password": "correct horse battery staple 42"},
          "workspace": {"name": "Forged"}, "invite": {"email": "forged@example.org"},
          "ip-allow": {"ip_allow": "10.0.0.0/8"}, "terms": {"agree": "yes"}, "plan": {"plan": "paid"},
          "roll": {"overlap": "now"}, "domain-form": {"domain": "forged.example"},
          "change-domain": {"domain": "forged.example"},
          "profile": {"legal_name": "Forged Ltd", "website": "https://forged.example", "country": "GB",
                      "contact_email": "x@forged.example", "intended_use": "Forgery."}}


def _arrange(world, client, workspace_id, form_id):
    """What a form needs to be on its page: a domain entered (check, change), a verified domain (profile)."""
    if form_id in ("check", "change-domain"):
        submit(client.get(f"/portal/workspaces/{workspace_id}/domain"), "domain-form", domain="mine.example",
               status=303)
    if form_id == "profile":
        world.set_workspace(uuid.UUID(workspace_id), verified=True)


@pytest.mark.parametrize("form_id", ["signup", "login", "logout", "password-change", "forgot-password",
                                     "email-change", "workspace", "invite",
                                     "new-key", "revoke", "roll", "ip-allow", "terms", "plan", "domain-form",
                                     "check", "change-domain", "profile"])
@pytest.mark.parametrize("forgery", ["no token", "other origin"])
def test_a_forged_form_changes_nothing(app, engine, world, form_id, forgery):
    client, workspace_id = with_workspace(app)
    _arrange(world, client, workspace_id, form_id)
    key_id = secret_of(create_key(client, workspace_id)).split("_")[2]
    if form_id in ("signup", "login", "forgot-password"):
        client.get("/portal/").forms["logout"].submit(status=303)
    form = client.get(_pages(workspace_id, key_id)[form_id]).forms[form_id]
    for name, value in FILLED.get(form_id, {}).items():
        form[name] = value
    fields = dict(form.submit_fields())
    headers = {}
    if forgery == "no token":
        fields.pop("csrf_token")
    else:
        headers["Origin"] = "https://attacker.example"
    before = _snapshot(engine)
    answer = client.post(form.action, fields, headers=headers, status=403)
    assert "Nothing was changed" in answer.text
    assert _snapshot(engine) == before
