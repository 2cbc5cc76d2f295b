"""Decision 0045: every successful portal POST, on both faces, answers 303 See Other (POST/Redirect/GET),
so reloading the page that follows never posts again. The walk starts from the views the application
registered: a POST view added later without a scenario here fails the first test, so none can forget.

Each scenario drives the form from its own page, as a browser would, and returns the POST's answer."""

import datetime
import functools
import re
import uuid

import pytest
import webtest

from tests.common.cli import ok
from tests.portal.console_helpers import path_of, set_password_link, staff_browser
from tests.identity.software_authenticator import SoftwareAuthenticator
from tests.portal.helpers import (PASSKEY_ORIGIN, PASSWORD, add_passkey, browser, enrol_app, log_in_to_second_step,
                                  mailed_to, portal_path, signed_up, submit, totp_code, unique_email, with_workspace)
from tests.review.conftest import Clinic

SCENARIOS = {}

# POST views that never succeed, so never redirect: accepting or declining a submission that is already decided
# answers 409 with who decided it and when (tests/portal/test_error_faces.py shows it).
# Views that only refuse: a decision or an answer made meanwhile (409, nothing changed).
ONLY_REFUSE = {("DecidedSubmission", "accept"), ("DecidedSubmission", "decline"), ("AnsweredRequest", "approve"),
               ("AnsweredRequest", "decline")}


def scenario(context, name=""):
    """Registers how to make a successful POST to the view on `context` named `name`."""
    def register(function):
        SCENARIOS[(context, name)] = function
        return function
    return register


def registered_post_views(app):
    """(context class name, view name) of every POST view on the portal's route."""
    found = set()
    for item in app.registry.introspector.get_category("views"):
        view = item["introspectable"]
        methods = view["request_methods"] or ()
        methods = (methods,) if isinstance(methods, str) else methods
        if view["route_name"] == "portal" and "POST" in methods:
            found.add((view["context"].__name__, view["name"]))
    return found


def _key_id(page):
    return page.html.find(id="secret").get_text().strip().split("_")[2]


def _form(client, path, form_id, **fields):
    form = client.get(path).forms[form_id]
    for name, value in fields.items():
        form[name] = value
    return form


class Stage:
    """What the scenarios act on, built as they first need it: a developer's workspace, and a connected clinic
    with its admin and clinician (the automatic-acceptance pause after 2 items, so "Resume" can be shown)."""

    def __init__(self, app, world, receiver, mail):
        self.app = app
        self.world = world
        self.receiver = receiver
        self.mail = mail

    @functools.cached_property
    def developer(self):
        client, workspace_id = with_workspace(self.app)
        return client, f"/portal/workspaces/{workspace_id}", workspace_id

    def new_key(self):
        client, w, _ = self.developer
        created = submit(client.get(f"{w}/keys/new"), "new-key", mode="test", status=303).follow()
        return f"{w}/keys/{_key_id(created)}"

    def new_endpoint(self, console=False):
        client, area = (self.admin, f"{self.c}/webhooks") if console else (self.developer[0],
                                                                         f"{self.developer[1]}/webhooks")
        answer = submit(client.get(f"{area}/new"), "new-endpoint", url=self.receiver.url, status=303)
        return client, re.sub(r"\?.*$", "", path_of(answer.location))

    @functools.cached_property
    def clinic(self):
        testapp = webtest.TestApp(self.app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        return Clinic(testapp, self.world, self.world.connected())

    @property
    def c(self):
        return f"/portal/clinics/{self.clinic.id}"

    @functools.cached_property
    def admin(self):
        return staff_browser(self.app, self.clinic.id, "admin")[0]

    @functools.cached_property
    def clinician(self):
        return staff_browser(self.app, self.clinic.id, "clinician")[0]

    def new_clinic_key(self):
        created = submit(self.admin.get(f"{self.c}/keys"), "new-key", status=303).follow()
        return f"{self.c}/keys/{_key_id(created)}"

    def pending_submission(self):
        return f"{self.c}/queue/{self.clinic.allergy(f'Peanut {uuid.uuid4().hex[:6]}').json['data']['submission_id']}"

    @functools.cached_property
    def paused(self):
        """Conditions from the connected organization, accepted automatically until the pause."""
        ok("auto-accept", "set", "--clinic", self.clinic.id, "--workspace", self.clinic.connected.workspace_id,
           "--kinds", "condition", "--on")
        for code in ("I10", "E11", "J45"):
            self.clinic.send("conditions", {"patient_id": self.clinic.patient_id, "icd10_code": code})
        return f"workspace:{self.clinic.connected.workspace_id}"

    def connection_request(self):
        """A pending request from a new workspace to the clinic; returns (workspace id, the request's page)."""
        client, workspace_id = with_workspace(self.app)
        form = client.get(f"/portal/workspaces/{workspace_id}/connection-requests").forms["ask"]
        form["clinic_id"] = str(self.clinic.id)
        for box in form.fields["scopes"][:2]:
            box.checked = True
        form.submit(status=303)
        href = self.admin.get(f"{self.c}/connections").html.find(
            "a", href=re.compile(r"/connections/requests/"), string="Review the request")["href"]
        return workspace_id, href

    @functools.cached_property
    def second_connection(self):
        workspace_id, href = self.connection_request()
        _form(self.admin, href, "approve").submit(status=303)
        return f"{self.c}/connections/{workspace_id}"


# Accounts

@scenario("SignUp")
def _sign_up(stage):
    return submit(browser(stage.app).get("/portal/signup"), "signup", email=unique_email(), password=PASSWORD)


@scenario("VerifyEmail")
def _verify_email(stage):
    email = unique_email()
    _sign_up_as(stage, email)
    link = mailed_to(stage.mail, email, "Verify your email address for Clinic Records").link("/verify-email")
    return submit(browser(stage.app).get(portal_path(link)), "verify-email")


def _sign_up_as(stage, email):
    submit(browser(stage.app).get("/portal/signup"), "signup", email=email, password=PASSWORD, status=303)


@scenario("ForgotPassword")
def _forgot_password(stage):
    return submit(browser(stage.app).get("/portal/forgot-password"), "forgot-password", email=unique_email())


@scenario("ResetPassword")
def _reset_password(stage):
    _, email = signed_up(stage.app)
    link = ok("account", "reset-link", "--email", email)["reset_url"]
    return submit(browser(stage.app).get(portal_path(link)), "reset-password", password="a brand new phrase 31")


@scenario("EmailPage")
def _change_email(stage):
    client, _ = signed_up(stage.app)
    return submit(client.get("/portal/account/email"), "email-change", email=unique_email(), password=PASSWORD)


@scenario("ConfirmPage")
def _confirm_its_you(stage):
    client, _ = signed_up(stage.app)
    return submit(client.get("/portal/confirm?next=/portal/"), "confirm-password", password=PASSWORD)


def _two_sessions(stage):
    """A browser signed in, and the id of another session of the same account."""
    client, email = signed_up(stage.app)
    submit(browser(stage.app).get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    return client, client.get("/portal/account/sessions")


@scenario("SessionsPage", "end")
def _end_a_session(stage):
    client, page = _two_sessions(stage)
    other = next(form for form_id, form in page.forms.items() if str(form_id).startswith("end-")
                 and form_id != "end-others")
    return other.submit()


@scenario("SessionsPage", "end-others")
def _end_other_sessions(stage):
    _, page = _two_sessions(stage)
    return page.forms["end-others"].submit()


@scenario("EmailPage", "resend")
def _resend_verification(stage):
    client, _ = signed_up(stage.app, verified=False)
    return client.get("/portal/account/email").forms["resend"].submit()


@scenario("LogIn")
def _log_in(stage):
    _, email = signed_up(stage.app)
    return submit(browser(stage.app).get("/portal/login"), "login", email=email, password=PASSWORD)


@scenario("LogOut")
def _log_out(stage):
    client, _ = signed_up(stage.app)
    return client.get("/portal/").forms["logout"].submit()


@scenario("NotificationsPage")
def _choose_notifications(stage):
    client, _ = signed_up(stage.app)
    form = client.get("/portal/account/notifications").forms["notifications"]
    form.get("notify", index=0).checked = False
    return form.submit()


@scenario("PasswordPage")
def _change_password(stage):
    client, _ = signed_up(stage.app)
    return submit(client.get("/portal/account/password"), "password-change", current_password=PASSWORD,
                  new_password="another long phrase 8 for the walk")


# The developer portal

@scenario("WorkspacesCollection", "new")
def _new_workspace(stage):
    client, _ = signed_up(stage.app)
    return submit(client.get("/portal/workspaces/new"), "workspace", name="Walk Health")


@scenario("Members", "invite")
def _invite(stage):
    client, w, _ = stage.developer
    return submit(client.get(f"{w}/members"), "invite", email=unique_email(), role="developer")


def _team_member(stage, client, area, role):
    """A new person who joined `area` (a workspace's members or a clinic's staff) with `role`: their page."""
    if "/workspaces/" in area:
        person, email = signed_up(stage.app)
        link = submit(client.get(area), "invite", email=email, role=role, status=303).follow()
        submit(person.get(link.html.find(id="invitation-link").get_text().strip()), "join", status=303)
    else:
        email = unique_email("staff")
        link = submit(client.get(area), "invite", email=email, role=role, status=303).follow()
        person = browser(stage.app)
        submit(person.get(path_of(link.html.find(id="invitation-link").get_text().strip())), "join",
               password=PASSWORD, status=303)
    row = client.get(area).html.find("td", string=email).find_parent("tr")
    return person, path_of(row.find("a")["href"])


@scenario("Members", "cancel-invitation")
def _cancel_invitation(stage):
    client, w, _ = stage.developer
    submit(client.get(f"{w}/members"), "invite", email=unique_email(), role="developer", status=303)
    page = client.get(f"{w}/members")
    return page.forms[next(name for name in page.forms if str(name).startswith("cancel-"))].submit()


@scenario("Members", "leave")
def _leave(stage):
    client, w, _ = stage.developer
    person, _ = _team_member(stage, client, f"{w}/members", "developer")
    return submit(person.get(f"{w}/members/leave"), "leave-form")


@scenario("MemberPage", "roles")
def _member_role(stage):
    client, w, _ = stage.developer
    _, page = _team_member(stage, client, f"{w}/members", "developer")
    return submit(client.get(page), "roles", role="owner")


@scenario("MemberPage", "remove")
def _member_remove(stage):
    client, w, _ = stage.developer
    _, page = _team_member(stage, client, f"{w}/members", "developer")
    return submit(client.get(page), "remove")


@scenario("CloseWorkspace")
def _close_workspace(stage):
    client, workspace_id = with_workspace(stage.app, "Closing Ltd")
    return submit(client.get(f"/portal/workspaces/{workspace_id}/close"), "close", name="Closing Ltd")


@scenario("InvitationPage")
def _accept_invitation(stage):
    client, w, _ = stage.developer
    invitee, email = signed_up(stage.app)
    shown = submit(client.get(f"{w}/members"), "invite", email=email, role="developer", status=303).follow()
    return invitee.get(shown.html.find(id="invitation-link").get_text().strip()).forms["join"].submit()


@scenario("KeysCollection", "new")
def _create_key(stage):
    client, w, _ = stage.developer
    return submit(client.get(f"{w}/keys/new"), "new-key", mode="test")


@scenario("KeyResource", "revoke")
def _revoke_key(stage):
    key = stage.new_key()
    return stage.developer[0].get(f"{key}/revoke").forms["revoke"].submit()


@scenario("KeyResource", "roll")
def _roll_key(stage):
    key = stage.new_key()
    return submit(stage.developer[0].get(f"{key}/roll"), "roll", overlap="1h")


@scenario("KeyResource", "ip-allow")
def _ip_allow(stage):
    key = stage.new_key()
    return submit(stage.developer[0].get(f"{key}/ip-allow"), "ip-allow", ip_allow="10.0.0.0/8")


@scenario("TermsPage")
def _terms(stage):
    client, w, _ = stage.developer
    return submit(client.get(f"{w}/terms"), "terms", agree="yes")


@scenario("PlanPage")
def _plan(stage):
    client, w, _ = stage.developer
    return submit(client.get(f"{w}/plan"), "plan", plan="paid")


@scenario("DomainPage")
def _set_domain(stage):
    client, w, _ = stage.developer
    return submit(client.get(f"{w}/domain"), "domain-form", domain="walk.example")


def _with_a_domain(stage):
    client, w, _ = stage.developer
    page = client.get(f"{w}/domain")
    if "domain-form" in page.forms:
        submit(page, "domain-form", domain="first.example", status=303)
    return client, w


@scenario("DomainPage", "change")
def _change_domain(stage):
    client, w = _with_a_domain(stage)
    asked = submit(client.get(f"{w}/domain/change"), "change-domain", domain="second.example")
    assert asked.status_int == 303, "asking to change the domain (the confirmation comes next)"
    return asked.follow().forms["change-domain"].submit()


@scenario("DomainPage", "check")
def _check_domain(stage):
    client, w = _with_a_domain(stage)
    return client.get(f"{w}/domain").forms["check"].submit()


@scenario("ProfilePage")
def _profile(stage):
    client, w, workspace_id = stage.developer
    stage.world.set_workspace(uuid.UUID(workspace_id), verified=True)
    return submit(client.get(f"{w}/profile"), "profile", legal_name="Walk Health Ltd",
                  website="https://walk.example", country="GB", contact_email="dev@walk.example",
                  intended_use="Our scheduling product reads and books clinics' appointments for patients.")


@scenario("WorkspaceConnectionRequests")
def _ask(stage):
    client, w, _ = stage.developer
    form = client.get(f"{w}/connection-requests").forms["ask"]
    form["clinic_id"] = str(stage.clinic.id)
    form.fields["scopes"][0].checked = True
    return form.submit()


@scenario("WorkspaceConnectionRequests", "withdraw")
def _withdraw(stage):
    client, w, _ = stage.developer
    page = client.get(f"{w}/connection-requests")
    if not any(str(name).startswith("withdraw-") for name in page.forms):
        _ask(stage)  # the stage's request, unless the ask's own scenario made it already (one may wait at once)
        page = client.get(f"{w}/connection-requests")
    withdraw = [page.forms[name] for name in page.forms if str(name).startswith("withdraw-")][0]
    return withdraw.submit()


# Webhooks, on both faces

def _webhook_scenarios(face, console):
    @scenario(f"{face}Webhooks", "new")
    def _add(stage):
        client, area = (stage.admin, f"{stage.c}/webhooks") if console else (
            stage.developer[0], f"{stage.developer[1]}/webhooks")
        return submit(client.get(f"{area}/new"), "new-endpoint", url=stage.receiver.url)

    def on_endpoint(action, form_id=None, **fields):
        @scenario(f"{face}Endpoint", action)
        def _act(stage):
            client, here = stage.new_endpoint(console)
            if action == "resend":
                client.get(here).forms["send-test"].submit(status=303)
                page = client.get(here)
                form_id_now = next(name for name in page.forms if str(name).startswith("resend-"))
                return page.forms[form_id_now].submit()
            if action == "enable":
                client.get(here).forms["disable"].submit(status=303)
            page = client.get(f"{here}/{action}") if action in ("recover", "rotate", "delete") else client.get(here)
            return submit(page, form_id or action, **fields)

    on_endpoint("secret", "reveal-secret")
    on_endpoint("test", "send-test")
    on_endpoint("resend")
    on_endpoint("disable")
    on_endpoint("enable")
    on_endpoint("recover", since=(datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)).strftime(
        "%Y-%m-%dT%H:%M"))
    on_endpoint("rotate", overlap="24h")
    on_endpoint("delete")


_webhook_scenarios("Workspace", console=False)
_webhook_scenarios("Clinic", console=True)


# The clinic console

@scenario("JoinPage")
def _join(stage):
    link, _ = set_password_link(stage.clinic.id, "clinician")
    return submit(browser(stage.app).get(path_of(link)), "join", password=PASSWORD)


@scenario("Staff", "invite")
def _staff_invite(stage):
    return submit(stage.admin.get(f"{stage.c}/staff"), "invite", email=unique_email("staff"), role="clinician")


@scenario("Staff", "cancel-invitation")
def _staff_cancel_invitation(stage):
    submit(stage.admin.get(f"{stage.c}/staff"), "invite", email=unique_email("staff"), role="clinician", status=303)
    page = stage.admin.get(f"{stage.c}/staff")
    return page.forms[next(name for name in page.forms if str(name).startswith("cancel-"))].submit()


@scenario("Staff", "leave")
def _staff_leave(stage):
    person, _ = _team_member(stage, stage.admin, f"{stage.c}/staff", "clinician")
    return submit(person.get(f"{stage.c}/staff/leave"), "leave-form")


@scenario("StaffMemberPage", "roles")
def _staff_roles(stage):
    _, page = _team_member(stage, stage.admin, f"{stage.c}/staff", "clinician")
    return submit(stage.admin.get(page), "roles", role="admin,clinician")


@scenario("StaffMemberPage", "remove")
def _staff_remove(stage):
    _, page = _team_member(stage, stage.admin, f"{stage.c}/staff", "clinician")
    return submit(stage.admin.get(page), "remove")


@scenario("ClinicKeys", "new")
def _clinic_key(stage):
    return submit(stage.admin.get(f"{stage.c}/keys"), "new-key")


@scenario("ClinicKey", "revoke")
def _clinic_key_revoke(stage):
    return stage.admin.get(f"{stage.new_clinic_key()}/revoke").forms["revoke"].submit()


@scenario("ClinicKey", "roll")
def _clinic_key_roll(stage):
    return submit(stage.admin.get(f"{stage.new_clinic_key()}/roll"), "roll", overlap="now")


@scenario("ClinicKey", "ip-allow")
def _clinic_key_ip_allow(stage):
    return submit(stage.admin.get(f"{stage.new_clinic_key()}/ip-allow"), "ip-allow", ip_allow="127.0.0.1")


@scenario("AutoAcceptPage", "save")
def _auto_accept_save(stage):
    page = stage.admin.get(f"{stage.c}/auto-accept")
    form = page.forms[f"save-key:{stage.clinic.connected.key.split('_')[2]}"]
    form.fields["kinds"][0].checked = True
    return form.submit()


@scenario("AutoAcceptPage", "resume")
def _auto_accept_resume(stage):
    stage.paused  # noqa: B018  (builds the pause)
    page = stage.admin.get(f"{stage.c}/auto-accept")
    return page.forms[next(name for name in page.forms if str(name).startswith("resume-"))].submit()


@scenario("PendingRequest", "approve")
def _approve(stage):
    _, href = stage.connection_request()
    return stage.admin.get(href).forms["approve"].submit()


@scenario("PendingRequest", "decline")
def _decline_request(stage):
    _, href = stage.connection_request()
    return stage.admin.get(href).forms["decline"].submit()


@scenario("ClinicConnection", "narrow")
def _narrow(stage):
    form = stage.admin.get(stage.second_connection).forms["narrow"]
    form.fields["scopes"][1].checked = False
    return form.submit()


@scenario("ClinicConnection", "revoke")
def _revoke_connection(stage):
    return stage.admin.get(stage.second_connection).forms["revoke"].submit()


@scenario("PendingSubmission", "accept")
def _accept_submission(stage):
    return stage.clinician.get(stage.pending_submission()).forms["accept"].submit()


@scenario("PendingSubmission", "decline")
def _decline_submission(stage):
    return submit(stage.clinician.get(stage.pending_submission()), "decline", reason="Not this patient's")


@scenario("ReviewsPage")
def _mark_reviewed(stage):
    stage.paused  # noqa: B018  (items accepted automatically)
    page = stage.clinician.get(f"{stage.c}/queue/reviews")
    return page.forms[next(name for name in page.forms if str(name).startswith("review-"))].submit()


# Second factors (docs/decisions/0086-second-factor-building-blocks.md)


def _factored(stage):
    """A new account with an authenticator app (its secret, its recovery codes, its browser)."""
    client, email = signed_up(stage.app)
    secret, codes = enrol_app(client)
    return client, email, secret, codes


@scenario("AppPage")
def _start_app(stage):
    client, _ = signed_up(stage.app)
    return submit(client.get("/portal/account/two-factor"), "start-app")


@scenario("AppPage", "confirm")
def _confirm_app(stage):
    client, _ = signed_up(stage.app)
    page = submit(client.get("/portal/account/two-factor"), "start-app", status=303).follow()
    secret = page.html.find(id="secret-text").get_text().replace(" ", "")
    return submit(page, "confirm-app", code=totp_code(secret))


@scenario("AppRemoval")
def _remove_app(stage):
    client = _factored(stage)[0]
    return submit(client.get("/portal/account/two-factor/app/remove"), "remove-app")


@scenario("RecoveryCodesPage")
def _new_recovery_codes(stage):
    client = _factored(stage)[0]
    return submit(client.get("/portal/account/two-factor/recovery-codes"), "regenerate-codes")


@scenario("PasskeysPage")
def _add_a_passkey(stage):
    client, _ = signed_up(stage.app)
    return add_passkey(client, SoftwareAuthenticator(), status=None)


def _passkey_page(stage):
    client, _ = signed_up(stage.app)
    add_passkey(client, SoftwareAuthenticator())
    href = client.get("/portal/account/two-factor").html.select_one("#passkeys tbody a")["href"]
    return client, client.get(href)


@scenario("PasskeyItem", "rename")
def _rename_passkey(stage):
    client, page = _passkey_page(stage)
    return submit(page, "rename-passkey", name="Renamed")


@scenario("PasskeyItem", "remove")
def _remove_passkey(stage):
    client, page = _passkey_page(stage)
    return submit(page, "remove-passkey")


@scenario("SecondStep")
def _second_step_code(stage):
    _, email, _, codes = _factored(stage)
    _, step = log_in_to_second_step(stage.app, email)
    return submit(step, "second-step", code=codes[0])


@scenario("SecondStep", "passkey")
def _second_step_passkey(stage):
    client, email = signed_up(stage.app)
    key = SoftwareAuthenticator()
    add_passkey(client, key)
    _, step = log_in_to_second_step(stage.app, email)
    form = step.forms["second-step-passkey"]
    form["credential"] = key.get(step.html.find(id="second-step-passkey")["data-passkey-options"], PASSKEY_ORIGIN)
    return form.submit()


@scenario("PasskeySignIn")
def _passkey_alone(stage):
    client, _ = signed_up(stage.app)
    key = SoftwareAuthenticator()
    add_passkey(client, key)
    visitor = browser(stage.app)
    form = visitor.get("/portal/login").forms["passkey-sign-in"]
    form["credential"] = key.get(visitor.get("/portal/login/passkey/options").text, PASSKEY_ORIGIN)
    return form.submit()


@scenario("SecurityPage")
def _require_second_factor(stage):
    client, workspace_id = with_workspace(stage.app)
    enrol_app(client)
    return submit(client.get(f"/portal/workspaces/{workspace_id}/security"), "factor-rule", required=True)


def test_every_registered_portal_post_has_a_scenario(app):
    registered = registered_post_views(app)
    assert sorted(registered - set(SCENARIOS) - ONLY_REFUSE) == [], "a portal POST view without a scenario here"
    assert sorted((set(SCENARIOS) | ONLY_REFUSE) - registered) == [], "a scenario for a view that no longer exists"


@pytest.fixture(scope="module")
def pausing(request):
    return {"review.auto_accept_pause_threshold": "2", "review.auto_accept_pause_window_minutes": "60"}


def test_every_successful_portal_post_answers_303(make_app, pausing, world, receiver, mail):
    app = make_app(**pausing)
    stage = Stage(app, world, receiver, mail)
    answers = {}
    for view, make in SCENARIOS.items():
        try:
            answers[view] = make(stage).status_int
        except Exception as error:  # noqa: BLE001  (a 4xx/5xx, or a page without its form: report them all)
            answers[view] = f"{type(error).__name__}: {str(error)[:300]}"
    failed = {view: status for view, status in answers.items() if status != 303}
    assert not failed, "\n".join(f"{view}: {status}" for view, status in failed.items())
