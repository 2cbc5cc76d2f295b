""""Confirm it's you": re-authentication before a sensitive action (`portal.web.reauth`), by any method the
account can use (`identity.services.IReauthentication`; the password first, others plug in)."""

from pyramid.httpexceptions import HTTPSeeOther
from pyramid.view import view_config

from clinicrecords.errors import FieldErrors
from clinicrecords.identity.services import IReauthentication, IReauthVerifier
from clinicrecords.portal.accounts.forms import ConfirmForm, kept_next, safe_next
from clinicrecords.portal.accounts.resources import ConfirmPage
from clinicrecords.portal.web.forms import FormError, rerender
from clinicrecords.portal.web.once import shown_once
from clinicrecords.portal.web.reauth import CONFIRM_FORMS, CONFIRM_PREPARE, CONTINUE_PAGE, RESUME
from clinicrecords.portal.web.resources import SIGNED_IN

T = "clinicrecords.portal.accounts:templates/"
NO_METHOD = "Choose a way to confirm it's you"


def _page(request, form, next, failed=None):
    reauth = request.find_service(IReauthentication)
    forms = request.registry.get(CONFIRM_FORMS, {})
    methods = [(name, forms[name]) for name in reauth.methods(request.identity.account_id) if name in forms]
    prepare = request.registry.get(CONFIRM_PREPARE, {})
    prepared = {name: prepare[name](request) for name, _ in methods if name in prepare}
    return {"form": form, "next": next, "methods": methods, "failed": failed, "prepared": prepared,
            "minutes": int(reauth.window.total_seconds() // 60)}


@view_config(route_name="portal", context=ConfirmPage, request_method="GET", renderer=T + "confirm.jinja2",
             permission=SIGNED_IN)
def confirm_page(context, request):
    return _page(request, ConfirmForm(), kept_next(request))


@view_config(route_name="portal", context=ConfirmPage, request_method="POST", renderer=T + "confirm.jinja2",
             permission=SIGNED_IN)
def confirm(context, request):
    form = ConfirmForm(request.POST)
    reauth = request.find_service(IReauthentication)
    method = form.shown("method")
    try:
        if method not in reauth.methods(request.identity.account_id):
            raise FieldErrors("method", NO_METHOD)
        verifier = request.find_service(IReauthVerifier, name=method)
        form = ConfirmForm.for_method(verifier.fields)(request.POST)
        typed = form.data
        reauth.confirm(request.identity, method, {name: typed[name] for name in verifier.fields},
                       request.remote_addr or "")
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_page(request, form, kept_next(request), failed=method))
    return HTTPSeeOther(safe_next(request, form["next"]))


@view_config(route_name="portal", context=ConfirmPage, name=CONTINUE_PAGE, request_method="GET",
             renderer=T + "continue.jinja2", permission=SIGNED_IN)
def continue_page(context, request):
    """"Continue where you were": the action "Confirm it's you" held back, with its form as typed: one button
    posts it (a fresh CSRF token), a link goes back to its form. Read once: a reload says it went."""
    request.response.headers["Cache-Control"] = "no-store"
    held = shown_once(request, RESUME).value
    if held is None:
        return {"held": None}
    shown = [(name.replace("_", " ").capitalize(), value) for name, value in held["fields"] if value.strip()]
    return {"held": held, "shown": shown}
