"""Decision 0046: a key may get a name at creation (optional, up to 100 characters, not unique), shown
wherever keys are listed (keys made before show their masked id); a workspace key can be restricted to some
of the permissions, as Stripe's restricted keys are (the CLI's `--scopes`)."""

import uuid

from sqlalchemy import select

from clinicrecords.access.models import ApiKey
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import create_key, error_summary, secret_of, submit, with_workspace


def _row(engine, key_id):
    with engine.connect() as connection:
        return connection.execute(select(ApiKey).where(ApiKey.key_id == key_id)).one()


def _cells(page):
    return [row.find("td").get_text(" ", strip=True) for row in page.html.find(id="keys").find("tbody")("tr")]


def test_a_named_key_is_listed_by_its_name_and_an_older_one_by_its_masked_id(app, engine, world):
    client, workspace_id = with_workspace(app)
    created = create_key(client, workspace_id, name="Billing server")
    key_id = secret_of(created).split("_")[2]
    assert "Billing server" in created.text
    assert _row(engine, key_id).name == "Billing server"
    twin = secret_of(create_key(client, workspace_id, name="Billing server")).split("_")[2]  # not unique
    before = world.key(workspace_id=uuid.UUID(workspace_id), mode="test")  # as keys made before: no name
    listing = client.get(f"/portal/workspaces/{workspace_id}/keys")
    masked = f"ehr_test_{before.split('_')[2][:4]}************"
    assert sorted(_cells(listing)) == sorted([f"Billing server ehr_test_{key_id[:4]}************ test",
                                              f"Billing server ehr_test_{twin[:4]}************ test",
                                              f"{masked} test"])
    activity = client.get(f"/portal/workspaces/{workspace_id}/activity").text
    assert "named “Billing server”" in activity


def test_a_name_over_100_characters_is_refused_with_every_other_problem_and_kept(app, engine):
    client, workspace_id = with_workspace(app)
    page = create_key(client, workspace_id, name="n" * 101, ip_allow="10.0.0.0/8\nnope", status=400)
    assert error_summary(page) == ["A key's name is at most 100 characters",
                                   "“nope” is not an IP address or CIDR range, like 203.0.113.0/24"]
    assert page.html.find(id="name")["value"] == "n" * 101 and page.html.find(id="name-error") is not None
    with engine.connect() as connection:
        assert connection.execute(select(ApiKey).where(
            ApiKey.workspace_id == uuid.UUID(workspace_id))).first() is None


def test_a_restricted_key_holds_only_the_ticked_permissions(app, engine, world, testapp):
    client, workspace_id = with_workspace(app)
    page = client.get(f"/portal/workspaces/{workspace_id}/keys/new")
    form = page.forms["new-key"]
    form["access"] = "restricted"
    refused = form.submit(status=400)
    assert error_summary(refused) == ["Tick at least one permission for a restricted key"]
    form = refused.forms["new-key"]
    for box in form.fields["scopes"]:
        box.checked = box._value == "patients:read"
    secret = secret_of(form.submit(status=303).follow())
    assert _row(engine, secret.split("_")[2]).scopes == ["patients:read"]
    listing = client.get(f"/portal/workspaces/{workspace_id}/keys").html.find(id="keys").get_text(" ", strip=True)
    assert "restricted" in listing and "patients:read" in listing
    sandbox = client.get(f"/portal/workspaces/{workspace_id}").html.find(
        "dt", string="Sandbox clinic id").find_next("dd").get_text().strip()
    bearer = {"Authorization": f"Bearer {secret}"}
    assert testapp.get(f"/v1/clinics/{sandbox}/patients", headers=bearer).status_int == 200
    refusal = testapp.get(f"/v1/clinics/{sandbox}/allergies", headers=bearer, status=403).json
    assert refusal["code"] == "scope_missing"
    every = secret_of(create_key(client, workspace_id))
    assert _row(engine, every.split("_")[2]).scopes is None


def test_the_clinics_own_key_gets_a_name_too(app, engine, world):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    created = submit(admin.get(f"/portal/clinics/{clinic_id}/keys"), "new-key", name="Front desk app",
                     status=303).follow()
    key_id = secret_of(created).split("_")[2]
    assert "Front desk app" in created.text and _row(engine, key_id).name == "Front desk app"
    assert _cells(admin.get(f"/portal/clinics/{clinic_id}/keys")) == [
        f"Front desk app ehr_live_{key_id[:4]}************ live"]


def test_the_automatic_acceptance_page_names_keys(app, world, testapp):
    connected = world.connected()
    named = world.key(workspace_id=connected.workspace_id, mode="live", name="Sync job").split("_")[2]
    admin, _ = staff_browser(app, connected.clinic_id, "admin")
    page = admin.get(f"/portal/clinics/{connected.clinic_id}/auto-accept")
    headings = [h.get_text(" ", strip=True) for h in page.html.find_all("h2")]
    assert "Test Workspace: Sync job key" in headings
    unnamed = connected.key.split("_")[2]
    assert f"Test Workspace: ehr_live_{unnamed[:4]}************ key" in headings
    assert f"ehr_live_{named[:4]}************" in page.text
