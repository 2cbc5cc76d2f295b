"""Two-factor authentication pages (decision 0096), for both faces: the person's factors, an authenticator app's
enrolment, recovery codes shown once, passkeys (add, rename, remove); the second step of signing in and
password-free sign-in with a passkey. Thin: parse, call identity's `IFactorService` / `ISignInSteps`, render."""

from pyramid.httpexceptions import HTTPNotFound
from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED
from pyramid.view import exception_view_config, view_config

from clinicrecords.identity.services import IFactorService, ISessionService, ISignInSteps
from clinicrecords.portal.accounts.factors import ceremonies
from clinicrecords.portal.accounts.factors.forms import (AddPasskeyForm, CodeForm, NextForm, PasskeyForm,
                                                         RenamePasskeyForm)
from clinicrecords.portal.accounts.factors.resources import (AppPage, AppRemoval, PasskeyItem, PasskeySignIn,
                                                             PasskeysPage, RecoveryCodesPage, SecondStep,
                                                             TwoFactorPage)
from clinicrecords.portal.accounts.factors.signin import (log_in_page_values, pending_token, portal_rp,
                                                          rp_or_not_found, sign_in_cookie, signed_in)
from clinicrecords.portal.accounts.forms import LogInForm, kept_next
from clinicrecords.portal.web.forms import FormError, rerender, see_other
from clinicrecords.portal.web.headers import loads_passkey_script
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.resources import SIGNED_IN

T = "clinicrecords.portal.accounts.factors:templates/"
ACCOUNTS = "clinicrecords.portal.accounts:templates/"
CODES = "recovery-codes"
REGISTRATION = "passkey-registration"
# Why a page led here (`?required=`): the words the two-factor page says.
REASONS = {
    "patient_data": "Clinic staff set up a second factor before any page that shows patient data opens (the review "
                    "queue, who read what). Set one up below: an authenticator app, or a passkey.",
    "workspace": "An owner of your workspace requires a second factor of every member. Set one up below: an "
                 "authenticator app, or a passkey.",
}


def _factors(request):
    return request.find_service(IFactorService)


def _account(request):
    return request.identity.account_id


def _to_overview(request, next_, **done):
    return see_other(request, "account", "two-factor", next=next_ or None, **done)


def _factor_added(request, codes, next_, **done):
    """A factor was added: every other browser signed in as this person is signed out (a session opened with the
    password alone must not go on past the page that now asks for a second factor: it signs in again, second step
    and all), then the first factor's recovery codes once, else the overview."""
    identity = request.identity
    request.find_service(ISessionService).end_all_but(identity.account_id, identity.session_id)
    if codes:
        return see_other_once(request, CODES, codes, "account", "two-factor", "recovery-codes", next=next_ or None)
    return _to_overview(request, next_, **done)


# The person's factors.


@view_config(route_name="portal", context=TwoFactorPage, request_method="GET", renderer=T + "overview.jinja2",
             permission=SIGNED_IN)
def two_factor_page(context, request):
    return {"factors": _factors(request).factors(_account(request)), "next": kept_next(request),
            "reason": REASONS.get(request.GET.get("required", "")), "done": request.GET.get("done", "")}


def _app_page(request, form, next_):
    factors = _factors(request)
    return {"factors": factors.factors(_account(request)), "enrolment": factors.app_enrolment(_account(request)),
            "form": form, "next": next_}


@view_config(route_name="portal", context=AppPage, request_method="GET", renderer=T + "app.jinja2",
             permission=SIGNED_IN)
def app_page(context, request):
    return _app_page(request, CodeForm(), kept_next(request))


@view_config(route_name="portal", context=AppPage, request_method="POST", renderer=T + "app.jinja2",
             permission=SIGNED_IN, reauth=True)
def start_app(context, request):
    form = NextForm(request.POST)
    try:
        form.data  # noqa: B018  (refuses unusable text before anything changes)
        _factors(request).start_app(_account(request))
    except FormError as exc:
        return rerender(request, **_app_page(request, CodeForm().refused(exc), kept_next(request)))
    return see_other(request, "account", "two-factor", "app", next=kept_next(request) or None)


@view_config(route_name="portal", context=AppPage, name="confirm", request_method="POST",
             renderer=T + "app.jinja2", permission=SIGNED_IN, reauth=True)
def confirm_app(context, request):
    form = CodeForm(request.POST)
    try:
        codes = _factors(request).confirm_app(_account(request), form["code"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_app_page(request, form, kept_next(request)))
    return _factor_added(request, codes, kept_next(request), done="app-added")


@view_config(route_name="portal", context=AppRemoval, request_method="GET", renderer=T + "app_remove.jinja2",
             permission=SIGNED_IN)
def app_removal_page(context, request):
    return {"form": NextForm(), "factors": _factors(request).factors(_account(request))}


@view_config(route_name="portal", context=AppRemoval, request_method="POST", renderer=T + "app_remove.jinja2",
             permission=SIGNED_IN, reauth=True)
def remove_app(context, request):
    form = NextForm(request.POST)
    try:
        form.data  # noqa: B018  (refuses unusable text before anything changes)
        _factors(request).remove_app(_account(request))
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, factors=_factors(request).factors(_account(request)))
    return _to_overview(request, None, done="app-removed")


# Recovery codes.


@view_config(route_name="portal", context=RecoveryCodesPage, request_method="GET", renderer=T + "codes.jinja2",
             permission=SIGNED_IN)
def recovery_codes_page(context, request):
    return {"shown": shown_once(request, CODES), "factors": _factors(request).factors(_account(request)),
            "form": NextForm(), "next": kept_next(request)}


@view_config(route_name="portal", context=RecoveryCodesPage, request_method="POST", renderer=T + "codes.jinja2",
             permission=SIGNED_IN, reauth=True)
def regenerate_codes(context, request):
    form = NextForm(request.POST)
    try:
        form.data  # noqa: B018  (refuses unusable text before anything changes)
        codes = _factors(request).regenerate_recovery_codes(_account(request))
    except FormError as exc:
        form.refused(exc)
        return rerender(request, shown=shown_once(request, CODES), factors=_factors(request).factors(
            _account(request)), form=form, next=kept_next(request))
    return see_other_once(request, CODES, codes, "account", "two-factor", "recovery-codes",
                          next=kept_next(request) or None)


# Passkeys.


def _passkey_page(request, form, next_):
    """The add-a-passkey page with a new ceremony: its challenge and user handle are stashed for this session,
    read once by the POST (`IOneTimeReads`)."""
    rp = portal_rp(request)
    if rp is None:
        return {"form": form, "ceremony": None, "ceremony_id": "", "next": next_}
    ceremony, user_handle = _factors(request).passkey_registration(_account(request), rp)
    ceremony_id = ceremonies.stash(request, REGISTRATION, challenge=ceremony.challenge, user_handle=user_handle)
    loads_passkey_script(request)
    return {"form": form, "ceremony": ceremony, "ceremony_id": ceremony_id, "next": next_}


@view_config(route_name="portal", context=PasskeysPage, request_method="GET", renderer=T + "passkey_new.jinja2",
             permission=SIGNED_IN)
def passkey_page(context, request):
    return _passkey_page(request, AddPasskeyForm(), kept_next(request))


def _stashed_ceremony(request, form):
    stashed = ceremonies.take(request, REGISTRATION, form["ceremony"])
    return (None, None) if stashed is None else (stashed["challenge"], stashed["user_handle"])


@view_config(route_name="portal", context=PasskeysPage, request_method="POST", renderer=T + "passkey_new.jinja2",
             permission=SIGNED_IN, reauth=True)
def add_passkey(context, request):
    form = AddPasskeyForm(request.POST)
    try:
        challenge, user_handle = _stashed_ceremony(request, form)
        codes = _factors(request).add_passkey(_account(request), rp_or_not_found(request), form["name"],
                                              form["credential"], challenge, user_handle)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_passkey_page(request, form, kept_next(request)))
    return _factor_added(request, codes, kept_next(request), done="passkey-added")


@view_config(route_name="portal", context=PasskeyItem, request_method="GET", renderer=T + "passkey.jinja2",
             permission=SIGNED_IN)
def passkey_item_page(context, request):
    return {"passkey": context.passkey, "form": RenamePasskeyForm({"name": context.passkey.name})}


@view_config(route_name="portal", context=PasskeyItem, name="rename", request_method="POST",
             renderer=T + "passkey.jinja2", permission=SIGNED_IN)
def rename_passkey(context, request):
    form = RenamePasskeyForm(request.POST)
    try:
        _factors(request).rename_passkey(_account(request), context.passkey.id, form["name"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, passkey=context.passkey, form=form)
    return _to_overview(request, None, done="passkey-renamed")


@view_config(route_name="portal", context=PasskeyItem, name="remove", request_method="POST",
             permission=SIGNED_IN, reauth=True)
def remove_passkey(context, request):
    try:
        _factors(request).remove_passkey(_account(request), context.passkey.id)
    except KeyError:
        raise HTTPNotFound() from None
    return _to_overview(request, None, done="passkey-removed")


# The second step of signing in.


def _second_step_page(request, form, pending):
    rp = portal_rp(request)
    ceremony = rp and request.find_service(ISignInSteps).passkey_options(pending_token(request), rp)
    if ceremony is not None:
        loads_passkey_script(request)
    return {"form": form, "pending": pending, "ceremony": ceremony, "next": kept_next(request)}


class NoPendingSignIn(Exception):
    """The browser has no sign-in waiting for its second step (never begun, left too long, or done)."""


def _pending(request):
    pending = request.find_service(ISignInSteps).pending(pending_token(request))
    if pending is None:
        raise NoPendingSignIn()
    return pending


@exception_view_config(NoPendingSignIn, route_name="portal", renderer=T + "second_step.jinja2")
def no_pending_sign_in(exc, request):
    """The second step's page without a sign-in waiting: it says so and leads to log in (nothing to submit)."""
    if request.method != "GET":
        request.response.status = 400
    request.response.headers.extend(sign_in_cookie(request).clear_headers(request))
    return {"form": CodeForm(), "pending": None, "ceremony": None, "next": kept_next(request)}


@view_config(route_name="portal", context=SecondStep, request_method="GET", renderer=T + "second_step.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def second_step_page(context, request):
    return _second_step_page(request, CodeForm(), _pending(request))


@view_config(route_name="portal", context=SecondStep, request_method="POST", renderer=T + "second_step.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def second_step_with_code(context, request):
    pending = _pending(request)
    form = CodeForm(request.POST)
    try:
        account_id = request.find_service(ISignInSteps).with_code(pending_token(request), form["code"],
                                                                  request.remote_addr or "")
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_second_step_page(request, form, pending))
    return signed_in(request, account_id, form.shown("next"))


@view_config(route_name="portal", context=SecondStep, name="passkey", request_method="POST",
             renderer=T + "second_step.jinja2", permission=NO_PERMISSION_REQUIRED)
def second_step_with_passkey(context, request):
    pending = _pending(request)
    form = PasskeyForm(request.POST)
    try:
        account_id = request.find_service(ISignInSteps).with_passkey(
            pending_token(request), form["credential"], rp_or_not_found(request), request.remote_addr or "")
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_second_step_page(request, CodeForm().refused(exc), pending))
    return signed_in(request, account_id, form.shown("next"))


# A passkey alone, from the log-in page.


@view_config(route_name="portal", context=PasskeySignIn, name="options", request_method="GET",
             permission=NO_PERMISSION_REQUIRED)
def password_free_options(context, request):
    """The ceremony's options as JSON for the log-in page's script; the challenge waits on the server, named by
    the pending sign-in's cookie this answer sets."""
    try:
        token, ceremony = request.find_service(ISignInSteps).password_free_options(rp_or_not_found(request),
                                                                                   request.remote_addr or "")
    except FormError as exc:
        # The page's script says the passkey could not be prepared; the answer says why and for how long.
        return Response(json_body={"error": exc.errors["credential"]}, status=429, charset="utf-8")
    response = Response(ceremony.options_json, content_type="application/json", charset="utf-8")
    for name, value in sign_in_cookie(request).set_headers(request, token):
        response.headers.add(name, value)
    return response


@view_config(route_name="portal", context=PasskeySignIn, request_method="POST",
             renderer=ACCOUNTS + "login.jinja2", permission=NO_PERMISSION_REQUIRED)
def password_free(context, request):
    form = PasskeyForm(request.POST)
    try:
        account_id = request.find_service(ISignInSteps).password_free(
            pending_token(request), form["credential"], rp_or_not_found(request), request.remote_addr or "")
    except FormError as exc:
        return rerender(request, **log_in_page_values(request, LogInForm().refused(exc)))
    return signed_in(request, account_id, form.shown("next"))
