from pyramid.httpexceptions import HTTPSeeOther
from pyramid.security import NO_PERMISSION_REQUIRED, forget, remember
from pyramid.view import view_config

from clinicrecords.identity.services import IAccountService, ISessionService
from clinicrecords.portal.accounts.forms import LogInForm, PasswordForm, SignUpForm, kept_next, safe_next
from clinicrecords.portal.accounts.resources import LogIn, LogOut, PasswordPage, SignUp
from clinicrecords.portal.web.forms import FormError, rerender
from clinicrecords.portal.web.resources import SIGNED_IN

T = "clinicrecords.portal.accounts:templates/"


def _signed_in(request, account, target):
    return HTTPSeeOther(safe_next(request, target), headers=remember(request, account.id))


@view_config(route_name="portal", context=SignUp, request_method="GET", renderer=T + "signup.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def sign_up_page(context, request):
    return {"form": SignUpForm(), "next": kept_next(request)}


@view_config(route_name="portal", context=SignUp, request_method="POST", renderer=T + "signup.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def sign_up(context, request):
    form = SignUpForm(request.POST)
    try:
        account = request.find_service(IAccountService).sign_up(form["email"], form["password"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, next=kept_next(request))
    return _signed_in(request, account, request.params.get("next"))


@view_config(route_name="portal", context=LogIn, request_method="GET", renderer=T + "login.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def log_in_page(context, request):
    return {"form": LogInForm(), "next": kept_next(request)}


@view_config(route_name="portal", context=LogIn, request_method="POST", renderer=T + "login.jinja2",
             permission=NO_PERMISSION_REQUIRED)
def log_in(context, request):
    form = LogInForm(request.POST)
    try:
        account = request.find_service(IAccountService).log_in(form["email"], form["password"],
                                                                request.remote_addr or "")
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, next=kept_next(request))
    return _signed_in(request, account, request.POST.get("next"))


@view_config(route_name="portal", context=LogOut, request_method="POST", permission=NO_PERMISSION_REQUIRED)
def log_out(context, request):
    return HTTPSeeOther(request.portal_url("login"), headers=forget(request))


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
                                                              form["new_password"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form)
    # Every other browser is signed out; this one continues in a new session with a new id.
    request.find_service(ISessionService).end_all_but(identity.account_id, identity.session_id)
    headers = forget(request) + remember(request, identity.account_id)
    return HTTPSeeOther(request.portal_url("account", "password", changed=1), headers=headers)
