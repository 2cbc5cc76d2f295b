import urllib.parse
import uuid

from pyramid.httpexceptions import HTTPSeeOther
from pyramid.security import NO_PERMISSION_REQUIRED, forget, remember
from pyramid.view import view_config

from clinicrecords.identity.services import (IAccountService, IFactorService, IInvitationService, IMembershipService,
                                             IReauthentication, IRecoveryService, ISessionService, normal_email)
from clinicrecords.portal.accounts.factors.signin import log_in_page_values, to_second_step
from clinicrecords.portal.accounts.forms import (EmailForm, ForgotPasswordForm, LogInForm, PasswordForm,
                                                 ResetPasswordForm, SignUpForm, VerifyEmailForm, kept_next, safe_next)
from clinicrecords.portal.accounts.resources import (AccountPages, EmailPage, ForgotPassword, LogIn, LogOut,
                                                     PasswordPage, ResetPassword, SignUp, VerifyEmail)
from clinicrecords.portal.web.faces import CLINIC_CONSOLE
from clinicrecords.portal.web.forms import FormError, readable, rerender
from clinicrecords.portal.web.resources import SIGNED_IN

T = "clinicrecords.portal.accounts:templates/"


def _signed_in(request, account, target):
    return HTTPSeeOther(safe_next(request, target), headers=remember(request, account.id))


def _client(request):
    return request.remote_addr or ""


def _sent(request):
    """The address a "we sent a link to ..." page names (the form's own redirect carries it)."""
    return readable(request.GET.get("sent", ""))


def _invitation(request):
    """The open workspace invitation whose link the sign-up's `next` is (its "Create an account"), or None."""
    path, _, query = kept_next(request).partition("?")
    if path != request.portal_url("invitations"):
        return None
    token = urllib.parse.parse_qs(query).get("token", [""])[0]
    return request.find_service(IInvitationService).invitation(token, "workspace")


@view_config(route_name="portal", context=SignUp, request_method="GET", renderer=T + "signup.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def sign_up_page(context, request):
    # An invitation's "Create an account" names the invited address; once signed up, the page leads back to it.
    return {"form": SignUpForm({"email": readable(request.GET.get("email", ""))}), "next": kept_next(request),
            "sent": _sent(request), "invited": _invitation(request) is not None}


@view_config(route_name="portal", context=SignUp, request_method="POST", renderer=T + "signup.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def sign_up(context, request):
    """The same answer for a new address and one that has an account: the email says which it was."""
    form = SignUpForm(request.POST)
    invitation = _invitation(request)
    try:
        # Come from an invitation mailed to this very address: its link proved the address already.
        invited = (invitation is not None and invitation.emailed_at is not None
                   and invitation.email == normal_email(form.shown("email")))
        email = request.find_service(IRecoveryService).sign_up(form["email"], form["password"], _client(request),
                                                               invited=invited)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, next=kept_next(request), sent="", invited=invitation is not None)
    return HTTPSeeOther(request.portal_url("signup", sent=email, next=kept_next(request) or None))


@view_config(route_name="portal", context=VerifyEmail, request_method="GET", renderer=T + "verify_email.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def verify_email_page(context, request):
    form = VerifyEmailForm(request.GET)
    return {"form": form, "email": request.find_service(IRecoveryService).verification(form.shown("token")),
            "verified": bool(request.GET.get("verified")), **_continue(request)}


def _continue(request):
    """Where "Continue" leads after verifying: a staff member's clinic console (the redirect names the clinic;
    traversal lets only its staff in), else the developer portal."""
    try:
        clinic_id = uuid.UUID(request.GET.get("clinic", ""))
    except ValueError:
        return {"continue_url": request.portal_url(""), "face_brand": None}
    return {"continue_url": request.portal_url("clinics", clinic_id), "face_brand": CLINIC_CONSOLE.brand}


@view_config(route_name="portal", context=VerifyEmail, request_method="POST", renderer=T + "verify_email.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def verify_email(context, request):
    form = VerifyEmailForm(request.POST)
    try:
        account = request.find_service(IRecoveryService).verify_email(form["token"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, email=None, verified=False, **_continue(request))
    clinics = request.find_service(IMembershipService).staff_roles(account.id)
    return HTTPSeeOther(request.portal_url("verify-email", verified=1, clinic=clinics[0][0] if clinics else None))


@view_config(route_name="portal", context=ForgotPassword, request_method="GET", renderer=T + "forgot.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def forgot_password_page(context, request):
    return {"form": ForgotPasswordForm(), "sent": _sent(request)}


@view_config(route_name="portal", context=ForgotPassword, request_method="POST", renderer=T + "forgot.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def forgot_password(context, request):
    """The same answer whether or not the address has an account."""
    form = ForgotPasswordForm(request.POST)
    try:
        email = request.find_service(IRecoveryService).request_reset(form["email"], _client(request))
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, sent="")
    return HTTPSeeOther(request.portal_url("forgot-password", sent=email))


@view_config(route_name="portal", context=ResetPassword, request_method="GET", renderer=T + "reset.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def reset_password_page(context, request):
    form = ResetPasswordForm(request.GET)
    return {"form": form, "email": request.find_service(IRecoveryService).reset_request(form.shown("token"))}


@view_config(route_name="portal", context=ResetPassword, request_method="POST", renderer=T + "reset.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def reset_password(context, request):
    form = ResetPasswordForm(request.POST)
    recovery = request.find_service(IRecoveryService)
    try:
        recovery.reset_password(form["token"], form["password"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, email=recovery.reset_request(form.shown("token")))
    # Every session of the account ended, this browser's too (it may be someone else's signed-in browser).
    return HTTPSeeOther(request.portal_url("login", reset=1), headers=forget(request))


@view_config(route_name="portal", context=AccountPages, request_method="GET", renderer=T + "account.jinja2",
             permission=SIGNED_IN)
def account_page(context, request):
    """The person's own account at a glance: the email and whether it is verified, the password, the second
    factors, the sessions and the notifications, each leading to its page."""
    account_id = request.identity.account_id
    return {"verified": request.find_service(IRecoveryService).is_verified(account_id),
            "factors": request.find_service(IFactorService).factors(account_id),
            "sessions": len(request.find_service(ISessionService).active(account_id))}


@view_config(route_name="portal", context=EmailPage, request_method="GET", renderer=T + "email.jinja2",
             permission=SIGNED_IN)
def email_page(context, request):
    return {"form": EmailForm(), "sent": _sent(request),
            "verified": request.find_service(IRecoveryService).is_verified(request.identity.account_id)}


@view_config(route_name="portal", context=EmailPage, request_method="POST", renderer=T + "email.jinja2",
             permission=SIGNED_IN)
def change_email(context, request):
    form = EmailForm(request.POST)
    recovery = request.find_service(IRecoveryService)
    account_id = request.identity.account_id
    try:
        email = recovery.change_email(account_id, form["password"], form["email"], _client(request))
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, sent="", verified=recovery.is_verified(account_id))
    # The password it asked for counts as confirming it's you (a new session after a password change does too).
    request.find_service(IReauthentication).renew(request.identity)
    return HTTPSeeOther(request.portal_url("account", "email", sent=email))


@view_config(route_name="portal", context=LogIn, request_method="GET", renderer=T + "login.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def log_in_page(context, request):
    return log_in_page_values(request, LogInForm())


@view_config(route_name="portal", context=LogIn, request_method="POST", renderer=T + "login.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def log_in(context, request):
    form = LogInForm(request.POST)
    try:
        account = request.find_service(IAccountService).log_in(form["email"], form["password"],
                                                                request.remote_addr or "")
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **log_in_page_values(request, form))
    if request.find_service(IFactorService).has_second_factor(account.id):
        return to_second_step(request, account.id, request.POST.get("next"))
    return _signed_in(request, account, request.POST.get("next"))


@view_config(route_name="portal", context=LogOut, request_method="POST", permission=NO_PERMISSION_REQUIRED)
def log_out(context, request):
    # "Log out and switch account" (a page for another kind of account) comes back to that page after logging in.
    return HTTPSeeOther(request.portal_url("login", next=kept_next(request) or None), headers=forget(request))


@view_config(route_name="portal", context=PasswordPage, request_method="GET", renderer=T + "password.jinja2",
             permission=SIGNED_IN)
def password_page(context, request):
    return {"form": PasswordForm()}


@view_config(route_name="portal", context=PasswordPage, request_method="POST", renderer=T + "password.jinja2",
             permission=SIGNED_IN)
def change_password(context, request):
    form = PasswordForm(request.POST)
    identity = request.identity
    try:
        request.find_service(IAccountService).change_password(identity.account_id, form["current_password"],
                                                              form["new_password"], _client(request))
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form)
    # Every other browser is signed out; this one continues in a new session with a new id.
    request.find_service(ISessionService).end_all_but(identity.account_id, identity.session_id)
    headers = forget(request) + remember(request, identity.account_id)
    return HTTPSeeOther(request.portal_url("account", "password", changed=1), headers=headers)


@view_config(route_name="portal", context=EmailPage, name="resend", request_method="POST",
             renderer=T + "email.jinja2", permission=SIGNED_IN)
def resend_verification(context, request):
    recovery = request.find_service(IRecoveryService)
    account_id = request.identity.account_id
    try:
        email = recovery.resend_verification(account_id, _client(request))
    except FormError as exc:
        form = EmailForm().refused(exc)
        return rerender(request, form=form, sent="", verified=recovery.is_verified(account_id))
    return HTTPSeeOther(request.portal_url("account", "email", sent=email))
