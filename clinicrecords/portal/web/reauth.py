"""Re-authentication before sensitive actions ("sudo mode"; the rule is the identity context's
`IReauthentication`: 10 minutes on the session, renewed by each sensitive action).

A portal view says it is sensitive with one option, checked by a view deriver so no such view can forget it:

    @view_config(..., reauth=True)                                   # always
    @view_config(..., reauth=Sensitive(when=is_live, form=key_page))  # only when `when(context, request)`

When the session has not proved it within the window, the view does not run: a GET goes to "Confirm it's you"
(`/confirm?next=…`), which comes back to the same address; a POST goes there too and, once confirmed, comes to
"Continue where you were" (`/confirm/continue`), which holds the action and the form as it was typed (a live
key's name, "Reveal signing secret"): one button does it, a link goes back to the form that posted it
(`form(context, request)`, by default the same address) to change it. Nothing is done behind the person's back.
What was typed is kept as a one-time read of the session (`portal.web.once`: sealed, 10 minutes, read once),
never a password. A successful POST renews the window.

Other ways to confirm (an authenticator app, a passkey) plug in with `add_reauth_method`.
"""

from pyramid.httpexceptions import HTTPForbidden, HTTPSeeOther

from clinicrecords.identity.services import IReauthentication
from clinicrecords.identity.services import add_reauth_method as add_reauth_verifier
from clinicrecords.portal.web.csrf import FIELD as CSRF_FIELD
from clinicrecords.portal.web.csrf import SAFE_METHODS
from clinicrecords.portal.web.interfaces import IOneTimeReads
from clinicrecords.portal.web.once import PARAMETER as ONCE_PARAMETER

# {method name: template of its form on the confirm page}, kept in the registry by `add_confirm_form`.
CONFIRM_FORMS = "portal.confirm_forms"
# {method name: prepare(request) -> the values its form needs}, for a form that needs some made per page (a
# passkey's ceremony).
CONFIRM_PREPARE = "portal.confirm_prepare"
CONFIRM_PAGE = "confirm"
CONTINUE_PAGE = "continue"  # /confirm/continue: the held action, after confirming
RESUME = "resume"           # the one-time read's kind


def hold_action(request, back):
    """Keep the POST that was held back (its address and fields as typed, without the CSRF token or any
    password) for "Continue where you were", and answer where "Confirm it's you" then leads."""
    fields = [[name, value] for name, value in request.POST.items()
              if isinstance(value, str) and name != CSRF_FIELD and "password" not in name]
    read_id = request.find_service(IOneTimeReads).put(RESUME, {"action": request.path_qs, "fields": fields,
                                                               "back": back})
    return request.portal_url(CONFIRM_PAGE, CONTINUE_PAGE, **{ONCE_PARAMETER: f"{RESUME}.{read_id}"})


class Sensitive:
    """What a view's `reauth=` option says: when the action is sensitive (`when(context, request)`; None:
    always) and where the form that posts it is (`form(context, request)`: a portal path; None: the same
    address)."""

    def __init__(self, when=None, form=None):
        self.when = when
        self.form = form

    def applies(self, context, request):
        return self.when is None or bool(self.when(context, request))

    def back(self, context, request):
        """Where "Confirm it's you" returns to."""
        if request.method in SAFE_METHODS:
            return request.path_qs
        return self.form(context, request) if self.form is not None else request.path


def confirm_first(request, back):
    """The answer that sends the person to "Confirm it's you", to come back to `back` (a portal path)."""
    return HTTPSeeOther(request.portal_url(CONFIRM_PAGE, next=back))


def reauth_deriver(view, info):
    rule = info.options.get("reauth")
    if not rule or info.exception_only:
        return view
    rule = Sensitive() if rule is True else rule

    def view_after_reauth(context, request):
        if not rule.applies(context, request):
            return view(context, request)
        identity = request.identity
        if identity is None:
            raise HTTPForbidden()
        reauth = request.find_service(IReauthentication)
        if not reauth.is_fresh(identity):
            back = rule.back(context, request)
            if request.method not in SAFE_METHODS:
                back = hold_action(request, back)
            return confirm_first(request, back)
        response = view(context, request)
        if request.method not in SAFE_METHODS and response.status_code < 400:
            reauth.renew(identity)
        return response

    return view_after_reauth


reauth_deriver.options = ("reauth",)


def add_confirm_form(config, name, template, prepare=None):
    """The confirm page's form for the method `name` (a template rendered with `form`, `next`, `failed` and
    `prepared[name]`, what `prepare(request)` answered for this page; it posts `method`, `next`, the csrf token
    and the verifier's `fields` to the confirm page)."""
    config.registry.setdefault(CONFIRM_FORMS, {})[name] = template
    if prepare is not None:
        config.registry.setdefault(CONFIRM_PREPARE, {})[name] = prepare


def add_reauth_method(config, name, verifier_factory, template, prepare=None):
    """A way to confirm it's you, in one call: its verifier (`identity.services.IReauthVerifier`, built by
    `verifier_factory(context, request)`) and its form on the confirm page."""
    add_reauth_verifier(config, name, verifier_factory)
    add_confirm_form(config, name, template, prepare)
