"""The API reference, found and right (decision 0040): the portal's navigation and every key page of both
faces link /v1/docs at the API's public address, and the reference's curl set-up names the address it is
served from (`api.base_url`, else the request's host) instead of a hard-coded localhost:6543."""

import webtest

from clinicrecords.api.code_samples import EXAMPLE_BASE_URL
from tests.conftest import ROOT
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import browser, create_key, secret_of, submit, with_workspace

BASE = "https://records.example.org/ehr"


def _setup_address(document):
    """The address the introduction's curl set-up exports."""
    line = next(line for line in document["info"]["description"].splitlines()
                if line.startswith("export CLINICRECORDS_URL="))
    return line.removeprefix("export CLINICRECORDS_URL=").split()[0]


def _shown(answer):
    """The page a form's answer shows (its redirect followed, if it answered with one)."""
    return answer.follow() if answer.status_int in (302, 303) else answer


def _reference_links(page):
    """(the masthead's reference link, the key page's reference link or None)."""
    masthead = page.html.find("header").find("a", string="API reference")
    note = page.html.find(id="api-reference")
    return masthead["href"], note.find("a")["href"] if note else None


def test_the_served_reference_names_the_address_it_is_served_from(testapp, make_app):
    assert _setup_address(testapp.get("/v1/openapi.json").json) == "http://localhost"
    assert _setup_address(testapp.get("/v1/openapi.json", headers={"Host": "api.test:8080"}).json) \
        == "http://api.test:8080"
    # A Host header that is no plain address is not printed into the reference.
    forged = testapp.get("/v1/openapi.json", headers={"Host": "evil.test`<img src=x>"}).json
    assert _setup_address(forged) == EXAMPLE_BASE_URL
    public = webtest.TestApp(make_app(**{"api.base_url": BASE}))
    assert _setup_address(public.get("/v1/openapi.json", headers={"Host": "attacker.test"}).json) == BASE
    committed = (ROOT / "docs" / "openapi.json").read_text(encoding="utf-8")
    assert "localhost:6543" not in committed and f"export CLINICRECORDS_URL={EXAMPLE_BASE_URL}" in committed


def test_the_navigation_and_every_developer_key_page_link_the_reference(app, testapp):
    reference = "http://localhost/v1/docs"
    assert _reference_links(browser(app).get("/portal/login")) == (reference, None)
    client, workspace_id = with_workspace(app)
    keys = f"/portal/workspaces/{workspace_id}/keys"
    assert _reference_links(client.get(f"/portal/workspaces/{workspace_id}")) == (reference, None)
    created = _shown(create_key(client, workspace_id, status=None))
    key_id = secret_of(created).split("_")[2]
    for page in (created, client.get(keys), client.get(f"{keys}/new"), client.get(f"{keys}/{key_id}/roll"),
                 client.get(f"{keys}/{key_id}/revoke"), client.get(f"{keys}/{key_id}/ip-allow")):
        assert _reference_links(page) == (reference, reference), page.request.path
    assert "Clinic Records API reference" in testapp.get("/v1/docs").text


def test_every_console_key_page_links_the_reference(app, world):
    reference = "http://localhost/v1/docs"
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    keys = f"/portal/clinics/{clinic_id}/keys"
    created = _shown(submit(admin.get(keys), "new-key", status=None))
    key_id = secret_of(created).split("_")[2]
    for page in (created, admin.get(keys), admin.get(f"{keys}/{key_id}/roll"), admin.get(f"{keys}/{key_id}/revoke"),
                 admin.get(f"{keys}/{key_id}/ip-allow")):
        assert _reference_links(page) == (reference, reference), page.request.path
    assert _reference_links(admin.get(f"/portal/clinics/{clinic_id}/staff")) == (reference, None)


def test_the_reference_is_linked_at_the_apis_public_address(make_app):
    page = browser(make_app(**{"api.base_url": BASE})).get("/portal/login", headers={"Host": "attacker.test"})
    assert _reference_links(page)[0] == f"{BASE}/v1/docs"
