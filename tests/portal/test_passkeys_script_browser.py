"""The portal's passkey script (`/static/passkeys.js`) in a real browser with Chrome's virtual authenticator
(selenium's add_virtual_authenticator), before any portal page uses it (the second factors' pages come with the
identity context). The pages here stand in for those pages, and only for the script's contract (docs/portal.md,
"Passkeys"): served by a small WSGI application on 127.0.0.1 and browsed as `localhost` (WebAuthn refuses
IP addresses), under the Content-Security-Policy such pages will send (script-src 'self', connect-src 'self', no
inline script, no eval). They serve the very bytes the portal serves, and verify what the script posts with the
identity context's own ceremonies: registration from inline options, password-free sign-in from fetched
options, the second step; the CSRF field posted; the redirect followed; a failure said on the page with nothing
posted."""

import base64
import html
import importlib.resources
import json
import threading

import pytest
import webtest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions
from selenium.webdriver.support.ui import WebDriverWait
from webob import Request, Response

from clinicrecords.identity.services import (KnownPasskey, PasskeyRefused, RelyingParty, authentication_options,
                                             credential_id_of, new_user_handle, registration_options,
                                             verify_authentication, verify_registration)
from tests.common.serving import serving
from tests.portal.test_browser import chrome  # noqa: F401  (the fixture)

SCRIPT = importlib.resources.files("clinicrecords.portal.web").joinpath("static/passkeys.js").read_bytes()
CSP = ("default-src 'none'; script-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; "
       "frame-ancestors 'none'")
CSRF = "csrf-token-of-the-session"
EMAIL = "ana.lima@example.com"


def test_the_portal_serves_the_script_as_it_serves_its_stylesheet(app):
    script = webtest.TestApp(app).get("/portal/static/passkeys.js")
    assert script.content_type == "text/javascript" and script.charset == "utf-8"
    assert script.body == SCRIPT
    assert script.headers["X-Content-Type-Options"] == "nosniff"
    assert script.headers["Cache-Control"] == "public, max-age=3600"
    text = SCRIPT.decode()
    for forbidden in ("eval(", "new Function", "innerHTML", "document.write", "setTimeout(\"", "http://",
                      "https://", "import("):
        assert forbidden not in text


def test_a_page_that_loads_the_script_allows_it_and_a_page_that_does_not_keeps_no_script(app):
    """The log-in page loads it (a passkey alone signs in) and fetches its options; the sign-up page does not
    (tests/portal/test_second_factor.py walks the rest)."""
    client = webtest.TestApp(app)
    login = client.get("/portal/login")
    assert '<script src="/portal/static/passkeys.js" defer></script>' in login.text
    assert login.headers["Content-Security-Policy"].endswith("; script-src 'self'; connect-src 'self'")
    signup = client.get("/portal/signup")
    assert "<script" not in signup.text and "script-src" not in signup.headers["Content-Security-Policy"]


class PasskeyPages:
    """The stand-in pages and what they received. One account, its passkeys and the challenge of the ceremony
    in progress, as a session would hold them (used once)."""

    def __init__(self):
        self.rp = None
        self.user_handle = new_user_handle()
        self.passkeys = {}
        self.challenge = None
        self.posted = []
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        request = Request(environ)
        with self.lock:
            response = self.answer(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["Cache-Control"] = "no-store"
        return response(environ, start_response)

    def answer(self, request):
        path = request.path
        if path == "/static/passkeys.js":
            return Response(SCRIPT, content_type="text/javascript", charset="utf-8")
        if request.method == "POST":
            return self.received(request)
        if path == "/register":
            ceremony = registration_options(self.rp, user_handle=self.user_handle, user_name=EMAIL,
                                            existing=[KnownPasskey(i) for i in self.passkeys])
            self.challenge = ceremony.challenge
            return self.page("register", "/register", "Add a passkey", options=ceremony.options_json)
        if path == "/second-step":
            ceremony = authentication_options(self.rp, allowed=[KnownPasskey(i) for i in self.passkeys])
            self.challenge = ceremony.challenge
            return self.page("authenticate", "/second-step", "Use your passkey", options=ceremony.options_json)
        if path == "/second-step-unknown":
            ceremony = authentication_options(self.rp, allowed=[KnownPasskey(b"\x07" * 32)])
            self.challenge = ceremony.challenge
            return self.page("authenticate", "/second-step", "Use your passkey", options=ceremony.options_json)
        if path == "/sign-in":
            return self.page("authenticate", "/sign-in", "Sign in with a passkey", options_url="/sign-in/options")
        if path == "/elsewhere":
            return self.page("authenticate", "https://evil.example/sign-in", "Sign in with a passkey",
                             options_url="/sign-in/options")
        if path == "/sign-in/options":
            ceremony = authentication_options(self.rp)
            self.challenge = ceremony.challenge
            return Response(ceremony.options_json, content_type="application/json", charset="utf-8")
        if path == "/done":
            return Response(f"<!doctype html><title>Done</title><h1 id='done'>{html.escape(request.GET['what'])}"
                            "</h1>", content_type="text/html", charset="utf-8")
        return Response("not found", status=404)

    def page(self, kind, action, button, options=None, options_url=None):
        source = (f'data-passkey-options="{html.escape(options)}"' if options
                  else f'data-passkey-options-url="{html.escape(options_url)}"')
        body = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{button}</title>
<script src="/static/passkeys.js" defer></script></head><body>
<form id="passkey" method="post" action="{html.escape(action)}" data-passkey="{kind}" {source}>
<input type="hidden" name="csrf_token" value="{CSRF}"><input type="hidden" name="credential" value="">
<p id="message" data-passkey-message hidden></p><button type="submit">{button}</button></form></body></html>"""
        return Response(body, content_type="text/html", charset="utf-8")

    def received(self, request):
        challenge, self.challenge = self.challenge, None  # used once, whatever comes of it
        self.posted.append({"path": request.path, "content_type": request.content_type,
                            "origin": request.headers.get("Origin"), "fields": sorted(request.POST)})
        if request.POST.get("csrf_token") != CSRF:
            return Response("The form has expired.", status=403)
        response = request.POST.get("credential", "")
        try:
            if request.path == "/register":
                new = verify_registration(self.rp, response=response, challenge=challenge)
                self.passkeys[new.credential_id] = new
                return Response(status=303, location="/done?what=registered")
            stored = self.passkeys.get(credential_id_of(response))
            if stored is None:
                raise PasskeyRefused("no such passkey")
            alone = request.path == "/sign-in"
            use = verify_authentication(self.rp, response=response, challenge=challenge,
                                        public_key=stored.public_key, sign_count=stored.sign_count,
                                        user_verification_required=alone, user_handle=self.user_handle)
            self.passkeys[stored.credential_id] = stored.__class__(**{**stored.__dict__,
                                                                      "sign_count": use.sign_count})
            return Response(status=303, location=f"/done?what={'signed-in-alone' if alone else 'second-step'}")
        except PasskeyRefused as refused:
            return Response(f"Refused: {refused.reason}", status=400)


@pytest.fixture
def pages():
    pages = PasskeyPages()
    with serving(pages) as base_url:
        base_url = base_url.replace("127.0.0.1", "localhost")
        pages.rp = RelyingParty(id="localhost", origin=base_url)
        pages.base_url = base_url
        yield pages


@pytest.fixture
def authenticator(chrome):  # noqa: F811
    chrome.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True, has_user_verification=True,
        is_user_consenting=True, is_user_verified=True))
    yield chrome
    chrome.remove_virtual_authenticator()


def _press(driver, pages, path, button):
    driver.get(pages.base_url + path)
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
    driver.find_element(By.XPATH, f"//button[normalize-space()='{button}']").click()


def _arrived(driver, what):
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "done"))
    assert driver.find_element(By.ID, "done").text == what


def _said(driver, words):
    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "message").is_displayed())
    assert words in driver.find_element(By.ID, "message").text
    assert driver.find_element(By.ID, "message").get_attribute("role") == "alert"


def test_register_then_sign_in_alone_then_as_a_second_step(pages, authenticator):
    driver = authenticator
    _press(driver, pages, "/register", "Add a passkey")
    _arrived(driver, "registered")
    assert driver.current_url == pages.base_url + "/done?what=registered"  # the redirect followed
    assert pages.posted == [{"path": "/register", "content_type": "application/x-www-form-urlencoded",
                             "origin": pages.base_url, "fields": ["credential", "csrf_token"]}]
    [passkey] = pages.passkeys.values()
    assert passkey.user_verified and "internal" in passkey.transports
    [held] = driver.get_credentials()
    assert held.is_resident_credential and held.rp_id == "localhost"
    assert base64.urlsafe_b64decode(held.user_handle) == pages.user_handle
    assert base64.urlsafe_b64decode(held.id) == passkey.credential_id

    _press(driver, pages, "/sign-in", "Sign in with a passkey")  # options fetched at submit
    _arrived(driver, "signed-in-alone")
    first_count = pages.passkeys[passkey.credential_id].sign_count
    assert first_count >= 1

    _press(driver, pages, "/second-step", "Use your passkey")
    _arrived(driver, "second-step")
    assert pages.passkeys[passkey.credential_id].sign_count > first_count
    assert [post["path"] for post in pages.posted] == ["/register", "/sign-in", "/second-step"]


def test_registering_the_same_authenticator_again_is_refused_by_the_browser_and_said(pages, authenticator):
    driver = authenticator
    _press(driver, pages, "/register", "Add a passkey")
    _arrived(driver, "registered")
    _press(driver, pages, "/register", "Add a passkey")  # its passkey is in the options' exclude list
    _said(driver, "No passkey was used")
    assert driver.current_url == pages.base_url + "/register" and len(pages.posted) == 1
    assert len(driver.get_credentials()) == 1


def test_a_failed_ceremony_is_said_on_the_page_and_nothing_is_posted(pages, authenticator):
    driver = authenticator
    _press(driver, pages, "/second-step-unknown", "Use your passkey")  # no passkey the authenticator holds
    _said(driver, "No passkey was used. Try again, or use another way.")
    assert driver.current_url == pages.base_url + "/second-step-unknown" and pages.posted == []


def test_a_form_that_sends_elsewhere_is_left_alone(pages, authenticator):
    driver = authenticator
    _press(driver, pages, "/elsewhere", "Sign in with a passkey")
    _said(driver, "does not send to this site")
    assert driver.current_url == pages.base_url + "/elsewhere" and pages.posted == []


def test_a_browser_without_passkeys_is_told_so(pages, chrome):  # noqa: F811
    chrome.get(pages.base_url + "/register")
    WebDriverWait(chrome, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
    chrome.execute_script("delete window.PublicKeyCredential;")
    chrome.find_element(By.XPATH, "//button[normalize-space()='Add a passkey']").click()
    _said(chrome, "This browser cannot use passkeys")
    assert pages.posted == []


def test_the_options_are_inline_json_the_page_escapes(pages):
    pages.rp = RelyingParty(id="localhost", origin=pages.base_url)
    body = pages.answer(Request.blank("/register")).text
    assert "data-passkey-options=\"{&quot;rp&quot;" in body
    options = json.loads(html.unescape(body.split('data-passkey-options="')[1].split('"')[0]))
    assert options["rp"]["id"] == "localhost" and options["user"]["name"] == EMAIL
