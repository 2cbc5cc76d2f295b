"""Two surfaces, two security policies: a key never opens a portal page, a portal session never opens an API
route, and each surface keeps its own headers and error answers."""

import webtest

from tests.portal.helpers import create_key, secret_of, with_workspace


def test_an_api_key_on_a_portal_page_is_sent_to_log_in(app, world):
    workspace_id, _ = world.workspace("Hidden Workspace Name")
    key = world.key(workspace_id=workspace_id, mode="test")
    client = webtest.TestApp(app)
    for path in ("/portal/", f"/portal/workspaces/{workspace_id}", f"/portal/workspaces/{workspace_id}/keys"):
        answer = client.get(path, headers={"Authorization": f"Bearer {key}"}, status=302)
        assert answer.location.startswith("http://localhost/portal/login?next=")
        assert "Hidden Workspace Name" not in answer.text


def test_a_portal_session_never_opens_an_api_route(app):
    client, workspace_id = with_workspace(app)
    answer = client.get("/v1/me", status=401)
    assert answer.content_type == "application/problem+json" and answer.json["code"] == "invalid_key"
    # A browser's call (with Origin) keeps the API's own refusal, exactly as before.
    refused = client.get("/v1/me", headers={"Origin": "http://localhost"}, status=403)
    assert refused.json["code"] == "browser_not_allowed"


def test_a_test_key_made_in_the_portal_opens_the_api_and_not_the_portal(app, testapp):
    client, workspace_id = with_workspace(app)
    key = secret_of(create_key(client, workspace_id))
    assert testapp.get("/v1/me", headers={"Authorization": f"Bearer {key}"}).json["data"]["mode"] == "test"
    testapp.get("/portal/", headers={"Authorization": f"Bearer {key}"}, status=302)


def test_portal_pages_carry_their_security_headers_and_the_api_keeps_its_own(app, testapp):
    page = webtest.TestApp(app).get("/portal/signup")  # the log-in page loads the passkey script (decision 0086)
    csp = page.headers["Content-Security-Policy"]
    assert "script-src" not in csp and "'unsafe-inline'" not in csp and "default-src 'none'" in csp
    assert "frame-ancestors 'none'" in csp and "style-src 'self'" in csp
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Referrer-Policy"] == "same-origin"
    assert page.headers["Cache-Control"] == "no-store"
    assert "<script" not in page.text and " style=" not in page.text
    api = testapp.get("/v1/me", status=401)
    assert api.headers["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'"


def test_portal_errors_are_pages_and_api_errors_stay_problems(app, testapp):
    missing = webtest.TestApp(app).get("/portal/no-such-page", status=404)
    assert missing.content_type == "text/html" and "Page not found" in missing.text
    assert testapp.get("/v1/no-such-thing", status=404).json["code"] == "not_found"


def test_the_stylesheet_is_served_and_needs_no_session(app):
    css = webtest.TestApp(app).get("/portal/static/portal.css")
    assert css.content_type == "text/css" and ".error-summary" in css.text


def test_with_portal_host_set_the_portal_answers_on_its_own_host_only(make_app, world):
    app = make_app(**{"portal.host": "developers.example.test"})
    portal = webtest.TestApp(app, extra_environ={"HTTP_HOST": "developers.example.test", "REMOTE_ADDR": "127.0.0.1"})
    page = portal.get("/login")
    assert 'action="/login"' in page.text and 'href="/static/portal.css"' in page.text
    portal.get("/v1/me", status=404)  # the portal's host has no API
    api = webtest.TestApp(app, extra_environ={"HTTP_HOST": "api.example.test", "REMOTE_ADDR": "127.0.0.1"})
    assert api.get("/portal/login", status=404).json["code"] == "not_found"
    workspace_id, _ = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    assert api.get("/v1/me", headers={"Authorization": f"Bearer {key}"}).json["data"]["mode"] == "test"
