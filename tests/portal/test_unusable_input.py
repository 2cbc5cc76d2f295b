"""Text a page cannot take (decision 0068): a NUL in any portal field or query answers that form's page with
its own error (400) and changes nothing, on both faces, and no log ever carries the values sent.

The walk is generic: from each face's first pages it follows the portal's own links, and every form it finds
is submitted once per field with a NUL in that field (the CSRF token left as it is), so a form added later is
walked too. The named forms of the issue have tests of their own below."""

import collections
import re
import urllib.parse
import uuid

import pytest
from sqlalchemy import text

from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import create_key, error_summary, signed_up, submit, unique_email, with_workspace
from tests.review.conftest import Clinic

NUL = "\x00"
# Links the walk does not follow: leaving, downloads, another face's pages, and the console's links into a
# patient's report (walked by its own test below, with the patient's id).
SKIPPED_LINKS = re.compile(r"/logout|\.csv|^/portal/static/|patient_id=")
MAX_PAGES = 120

# Every row of the tables portal forms write, as text: a refused form changes none of them.
TABLES = ("accounts", "sessions", "workspaces", "workspace_members", "invitations",
          "api_keys", "terms_acceptances", "workspace_domains", "business_profiles", "webhook_endpoints",
          "connections", "connection_requests", "clinic_staff", "auto_accept_settings")


def _snapshot(engine):
    with engine.connect() as connection:
        present = set(connection.scalars(text(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'control'")))
        return {table: sorted(map(repr, connection.execute(text(f"SELECT * FROM control.{table}")).all()))
                for table in TABLES if table in present}


def _links(page, within):
    for anchor in page.html.find_all("a", href=True):
        href = urllib.parse.urljoin(page.request.path, anchor["href"])
        if href.startswith(within) and not SKIPPED_LINKS.search(href):
            yield href.split("#")[0]


def _walk(client, starts, within):
    """{(form id, action, method): (page path, form)} for every form on the pages reachable from `starts`."""
    seen, queue, forms = set(), collections.deque(starts), {}
    while queue and len(seen) < MAX_PAGES:
        path = queue.popleft()
        if path in seen:
            continue
        seen.add(path)
        page = client.get(path, status="*")
        if page.status_int != 200 or page.content_type != "text/html":
            continue
        for form in page.forms.values():
            forms.setdefault((form.id, form.action, form.method), (path, form.id))
        queue.extend(link for link in _links(page, within) if link not in seen)
    return forms


# The CSRF token is refused as a forgery (tests/portal/test_csrf_everywhere.py); an unusable `next` leads home
# after signing in (tests/portal/test_sign_in_security.py).
NOT_WALKED = frozenset({"csrf_token", "next"})


def _fields(form):
    """The names a person can fill (or a page fills for them)."""
    return sorted({name for name, fields in form.fields.items()
                   if name and name not in NOT_WALKED and any(field.__class__.__name__ != "Submit"
                                                              for field in fields)})


def _with_nul(form, name):
    for field in form.fields[name]:
        value = field.value if isinstance(field.value, str) and field.value else "x"
        if field.__class__.__name__ in ("Checkbox", "Radio", "Select", "MultipleSelect"):
            field.force_value(value + NUL)
            if field.__class__.__name__ == "Checkbox":
                field.checked = True
        else:
            field.value = value + NUL
        break  # one field of that name carries the NUL; its siblings keep their values


def _assert_refused_by_its_form(client, engine, path, form_id, name):
    form = client.get(path).forms[form_id]
    _with_nul(form, name)
    before = _snapshot(engine)
    answer = form.submit(status="*")
    where = f"{form_id} on {path}, field {name}"
    assert answer.status_int == 400, f"{where}: {answer.status}"
    assert "text/html" in answer.content_type, where
    assert answer.html.find(class_="error-summary").find("a", href=f"#{name}") is not None, \
        f"{where}: {error_summary(answer)}"
    assert NUL not in answer.text, where
    assert _snapshot(engine) == before, f"{where}: something was written"


# Bodies no portal form can be read from: multipart without its boundary, a charset other than UTF-8.
UNREADABLE = ("multipart/form-data", "application/x-www-form-urlencoded; charset=latin-1")


def _assert_unreadable_body_refused(client, engine, path, form_id):
    """The form's own fields (its CSRF token too), sent in a body the portal cannot read: its 400 page."""
    form = client.get(path).forms[form_id]
    if form.method.upper() != "POST":
        return
    before = _snapshot(engine)
    body = urllib.parse.urlencode(form.submit_fields()).encode()
    for content_type in UNREADABLE:
        answer = client.post(form.action, body, headers={"Content-Type": content_type}, status="*")
        where = f"{form_id} on {path} sent as {content_type}"
        assert answer.status_int == 400 and "text/html" in answer.content_type, f"{where}: {answer.status}"
        assert answer.html.find("h1").get_text(strip=True) == "The form could not be read", where
    assert _snapshot(engine) == before, f"{form_id} on {path}: something was written"


def _walk_and_submit(client, engine, starts, within, at_least):
    forms = _walk(client, starts, within)
    walked = 0
    for path, form_id in forms.values():
        if form_id is None:
            continue
        _assert_unreadable_body_refused(client, engine, path, form_id)
        for name in _fields(client.get(path).forms[form_id]):
            _assert_refused_by_its_form(client, engine, path, form_id, name)
            walked += 1
    assert walked >= at_least, f"only {walked} fields walked: {sorted(forms)}"
    print("WALKED", walked, sorted(form_id for form_id, _, _ in forms if form_id))
    return forms


@pytest.fixture
def developer_portal(app, world, receiver):
    """An owner's browser on a workspace with something behind every page: a domain, a key, an endpoint with a
    delivery, a pending invitation, a verified domain (the business profile), a connectable clinic and a
    request to another clinic waiting for its answer (which can be withdrawn)."""
    client, workspace_id = with_workspace(app)
    submit(client.get(f"/portal/workspaces/{workspace_id}/domain"), "domain-form", domain="walk.example",
           status=303)
    create_key(client, workspace_id)
    add = client.get(f"/portal/workspaces/{workspace_id}/webhooks/new?mode=test").forms["new-endpoint"]
    add["url"] = receiver.url
    endpoint = add.submit(status=303).location
    submit(client.get(endpoint), "send-test")
    submit(client.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=unique_email(),
           role="developer")
    world.set_workspace(uuid.UUID(workspace_id), verified=True)
    world.clinic(name="Walkable Clinic")
    ask = client.get(f"/portal/workspaces/{workspace_id}/connection-requests").forms["ask"]
    ask["clinic_id"] = str(world.clinic(name="Asked Clinic"))
    ask.fields["scopes"][0].checked = True
    ask.submit(status=303)
    fresh = submit(client.get("/portal/workspaces/new"), "workspace", name="Without a domain", status=303)
    return client, workspace_id, urllib.parse.urlsplit(fresh.location).path


def test_every_developer_portal_form_refuses_a_nul_in_any_field(app, engine, developer_portal):
    client, workspace_id, fresh = developer_portal
    within = f"/portal/workspaces/{workspace_id}"
    starts = [within, f"{within}/domain", f"{within}/domain/change", f"{within}/connection-requests",
              "/portal/workspaces/new", "/portal/account/password", "/portal/account/email",
              "/portal/account/two-factor/passkeys", f"{fresh}/domain"]
    forms = _walk_and_submit(client, engine, starts, within, at_least=30)
    assert {form_id for form_id, _, _ in forms} >= {
        "invite", "new-key", "roll", "ip-allow", "domain-form", "change-domain", "new-endpoint", "recover",
        "rotate", "filter", "profile", "plan", "terms", "ask", "workspace", "password-change", "email-change",
        "add-passkey"}
    assert any(form_id.startswith("withdraw-") for form_id, _, _ in forms if form_id)
    signed_out = signed_up(app)[0]
    signed_out.get("/portal/").forms["logout"].submit(status=303)
    for path, form_id in (("/portal/signup", "signup"), ("/portal/login", "login"),
                          ("/portal/forgot-password", "forgot-password")):
        _assert_unreadable_body_refused(signed_out, engine, path, form_id)
        for name in _fields(signed_out.get(path).forms[form_id]):
            _assert_refused_by_its_form(signed_out, engine, path, form_id, name)


@pytest.fixture
def clinic_console(app, testapp, world):
    """A clinic with a patient, a submission waiting, a connection, a pending connection request, and browsers
    of its admin and of a clinician."""
    clinic = Clinic(testapp, world, world.connected())
    clinic.allergy("Peanut")
    asking, asking_id = with_workspace(app, name="Asking Org")
    world.set_workspace(uuid.UUID(asking_id), verified=True, paid=True, terms_accepted=True)
    ask = asking.get(f"/portal/workspaces/{asking_id}/connection-requests").forms["ask"]
    ask["clinic_id"] = str(clinic.id)
    for box in ask.fields["scopes"]:
        box.checked = box._value == "patients:read"
    ask.submit(status=303)
    admin, _ = staff_browser(app, clinic.id, "admin")
    clinician, _ = staff_browser(app, clinic.id, "clinician")
    return admin, clinician, clinic


def test_every_clinic_console_form_refuses_a_nul_in_any_field(engine, clinic_console):
    admin, clinician, clinic = clinic_console
    within = f"/portal/clinics/{clinic.id}"
    as_admin = _walk_and_submit(admin, engine, [within, f"{within}/connections"], within, at_least=12)
    as_clinician = _walk_and_submit(clinician, engine, [within, f"{within}/queue", f"{within}/queue/reviews"],
                                    within, at_least=4)
    walked = {form_id.split("-")[0].split(":")[0] for form_id, _, _ in {**as_admin, **as_clinician}
              if form_id}
    assert walked >= {"invite", "new", "narrow", "approve", "find", "save", "filters", "decline"}, walked


def test_the_access_reports_patient_query(clinic_console):
    admin, _, clinic = clinic_console
    answer = admin.get(f"/portal/clinics/{clinic.id}/access", params={"patient": "Ada\x00Quill"}, status=400)
    assert error_summary(answer) and answer.html.find(id="patient")["value"] == "AdaQuill"


def _named(page, form_id, status=400, **fields):
    answer = submit(page, form_id, status=status, **fields)
    return answer, error_summary(answer)


MESSAGE = "This contains a NUL character (a zero byte), which cannot be used here: remove it"


@pytest.mark.parametrize("path, form_id", [("/portal/signup", "signup"), ("/portal/login", "login")])
def test_a_nul_in_the_sign_up_or_log_in_email(app, engine, path, form_id):
    client = signed_up(app)[0]
    client.get("/portal/").forms["logout"].submit(status=303)
    before = _snapshot(engine)
    answer, summary = _named(client.get(path), form_id, email="ada\x00@example.org",
                             password="correct horse battery staple 42")
    assert summary == [MESSAGE]
    assert answer.html.find(id="email")["value"] == "ada@example.org"
    assert _snapshot(engine) == before


def test_a_nul_in_a_workspace_name_or_an_invitation_email(app, engine):
    client, workspace_id = with_workspace(app)
    before = _snapshot(engine)
    answer, summary = _named(client.get("/portal/workspaces/new"), "workspace", name="Acme\x00 Health")
    assert summary == [MESSAGE] and answer.html.find(id="name")["value"] == "Acme Health"
    answer, summary = _named(client.get(f"/portal/workspaces/{workspace_id}/members"), "invite",
                             email="new\x00@example.org")
    assert summary == [MESSAGE] and answer.html.find(id="email")["value"] == "new@example.org"
    assert _snapshot(engine) == before


def test_a_nul_in_a_staff_invitation_email(clinic_console, engine):
    admin, _, clinic = clinic_console
    before = _snapshot(engine)
    answer, summary = _named(admin.get(f"/portal/clinics/{clinic.id}/staff"), "invite",
                             email="nurse\x00@example.org")
    assert summary == [MESSAGE] and answer.html.find(id="email")["value"] == "nurse@example.org"
    assert _snapshot(engine) == before


def test_a_nul_in_a_webhook_url(app, engine, receiver):
    client, workspace_id = with_workspace(app)
    before = _snapshot(engine)
    answer, summary = _named(client.get(f"/portal/workspaces/{workspace_id}/webhooks/new?mode=test"),
                             "new-endpoint", url=receiver.url + "\x00")
    assert summary == [MESSAGE] and answer.html.find(id="url")["value"] == receiver.url
    assert _snapshot(engine) == before
