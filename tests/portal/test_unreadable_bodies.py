"""A portal POST whose body the portal cannot read as a form, signed in or not: multipart without its boundary,
or a charset other than UTF-8 (every portal form is UTF-8). Each is the portal's 400 page, never a 500, and
nothing is changed. (Every form the portal's pages show is walked with both in tests/portal/test_unusable_input.py.)"""

import pytest
from sqlalchemy import func, select

from clinicrecords.access.models import Workspace
from tests.portal.helpers import PASSWORD, browser, signed_up

BROKEN = [
    ("multipart/form-data", "csrf_token=x&email=a%40example.org"),
    ("multipart/form-data; boundary=", "csrf_token=x"),
    ("application/x-www-form-urlencoded; charset=latin-1", "email=j%FCrgen%40example.org&password=x"),
    ("application/x-www-form-urlencoded; charset=utf-16", "email=a"),
    ("application/x-www-form-urlencoded; charset=no-such-charset", "email=a"),
    ("multipart/form-data; boundary=x; charset=latin-1",
     '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nj\xfcrgen\r\n--x--\r\n'),
]
IDS = ["multipart-without-boundary", "multipart-empty-boundary", "latin-1", "utf-16", "unknown-charset",
       "multipart-latin-1"]


@pytest.mark.parametrize("content_type, body", BROKEN, ids=IDS)
@pytest.mark.parametrize("path", ["/portal/login", "/portal/signup", "/portal/forgot-password"])
def test_before_signing_in(app, path, content_type, body):
    client = browser(app)
    client.get(path)  # the pre-sign-in CSRF cookie
    answer = client.post(path, body.encode("latin-1"), headers={"Content-Type": content_type}, status=400)
    assert answer.content_type == "text/html"
    assert answer.html.find("h1").get_text(strip=True) == "The form could not be read"


@pytest.mark.parametrize("content_type, body", BROKEN, ids=IDS)
def test_signed_in(app, engine, content_type, body):
    client, _ = signed_up(app)
    with engine.connect() as connection:
        before = connection.scalar(select(func.count()).select_from(Workspace))
    answer = client.post("/portal/workspaces/new", body.encode("latin-1"), headers={"Content-Type": content_type},
                         status=400)
    assert answer.html.find("h1").get_text(strip=True) == "The form could not be read"
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(Workspace)) == before


def test_utf_8_named_as_such_is_read(app):
    client = browser(app)
    page = client.get("/portal/login")
    token = page.forms["login"]["csrf_token"].value
    answer = client.post("/portal/login", f"csrf_token={token}&email=nobody%40example.org&password={PASSWORD}",
                         headers={"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"}, status=400)
    assert "Email or password is not right" in answer.text
