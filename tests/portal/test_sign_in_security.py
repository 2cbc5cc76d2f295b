"""Where a sign-in leads (issue 31 item 3): a `next` that cannot be a path of the portal leads home."""

import pytest

from tests.portal.helpers import PASSWORD, browser, signed_up, unique_email

UNUSABLE_NEXT = [
    "/portal/\r\nSet-Cookie: portal_session=planted",
    "/portal/%0d%0aSet-Cookie:%20x=y\r\n",
    "/portal/\nLocation: https://evil.example/",
    "/portal/\u2028keys",
    "/portal/../v1/me",
    "/portal/%2e%2E/v1/me",
    "/portal/\\\\evil.example",
    "/portal/ keys",
]


@pytest.mark.parametrize("target", UNUSABLE_NEXT)
def test_log_in_with_an_unusable_next_goes_home(app, target):
    _, email = signed_up(app)
    client = browser(app)
    form = client.get("/portal/login", {"next": target}).forms["login"]
    form["email"], form["password"] = email, PASSWORD
    answer = form.submit(status=303)
    assert answer.location == "http://localhost/portal/"
    assert not [cookie for cookie in answer.headers.getall("Set-Cookie") if "planted" in cookie]


@pytest.mark.parametrize("target", UNUSABLE_NEXT)
def test_sign_up_with_an_unusable_next_goes_home(app, target):
    client = browser(app)
    form = client.get("/portal/signup", {"next": target}).forms["signup"]
    form["email"], form["password"] = unique_email(), PASSWORD
    assert form.submit(status=303).location == "http://localhost/portal/"


def test_a_usable_next_with_its_query_is_kept(app):
    _, email = signed_up(app)
    client = browser(app)
    form = client.get("/portal/login", {"next": "/portal/workspaces/new?from=menu%20bar"}).forms["login"]
    form["email"], form["password"] = email, PASSWORD
    assert form.submit(status=303).location == "http://localhost/portal/workspaces/new?from=menu%20bar"
