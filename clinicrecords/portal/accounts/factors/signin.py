"""Signing in past the password: the pending sign-in's cookie, the relying party of this portal, and the two
ways out of the log-in form (a session at once, or the second step first)."""

from pyramid.httpexceptions import HTTPNotFound, HTTPSeeOther
from pyramid.security import remember

from clinicrecords.identity.services import SECOND_STEP_LIFETIME, ISignInSteps, relying_party
from clinicrecords.portal.accounts.forms import kept_next, safe_next
from clinicrecords.portal.surface import PORTAL_PREFIX, portal_base_url
from clinicrecords.portal.web.faces import CLINIC_CONSOLE, DEVELOPER_PORTAL
from clinicrecords.portal.web.headers import loads_passkey_script
from clinicrecords.portal.web.sessions import SessionCookie
from clinicrecords.settings import SettingsError, app_settings

# The pending sign-in's cookie (a `SignInCookie`), kept in the registry by `portal.accounts.factors`.
SIGN_IN_COOKIE = "portal.sign_in_cookie"


class SignInCookie(SessionCookie):
    """The cookie of a browser between the password and the second step: as the session's (HttpOnly,
    SameSite=Lax, Secure with `__Host-` in production), named apart and gone with the pending sign-in. It opens
    the second step only: the session policy never reads it."""

    def __init__(self, settings, path):
        super().__init__(settings, path)
        self.name = "__Host-portal_sign_in" if self.secure else "portal_sign_in"
        self.absolute_seconds = int(SECOND_STEP_LIFETIME.total_seconds())


def sign_in_cookie(request):
    return request.registry[SIGN_IN_COOKIE]


def pending_token(request):
    return sign_in_cookie(request).read(request)


def portal_rp(request):
    """This portal's WebAuthn relying party: on its configured public address (`portal.url`, `portal.host`,
    `api.base_url`), else (development, tests) on the address the browser used, as the API's URLs are. None
    where passkeys cannot work (an IP address, plain http off localhost): the pages then offer the app and
    recovery codes only."""
    settings = app_settings(request.registry)
    if settings.portal.url or settings.portal.host or settings.api.base_url:
        address = portal_base_url(settings)
    else:
        address = request.host_url + request.registry[PORTAL_PREFIX]
    try:
        return relying_party(settings.portal, address)
    except SettingsError:
        return None


def rp_or_not_found(request):
    """The relying party, for a passkey form's POST (the page offered none without it)."""
    rp = portal_rp(request)
    if rp is None:
        raise HTTPNotFound()
    return rp


def to_second_step(request, account_id, target):
    """After the password of a person with a second factor: a pending sign-in, no session."""
    token = request.find_service(ISignInSteps).begin(account_id)
    next_ = safe_next(request, target)
    location = request.portal_url("login", "second-step", next=next_ if next_ != request.portal_url("") else None)
    return HTTPSeeOther(location, headers=sign_in_cookie(request).set_headers(request, token))


def signed_in(request, account_id, target):
    """A session starts (a new one, with a new token); the pending sign-in's cookie goes."""
    headers = remember(request, account_id) + sign_in_cookie(request).clear_headers(request)
    return HTTPSeeOther(safe_next(request, target), headers=headers)


def log_in_page_values(request, form):
    """What the log-in page shows: its form and, where passkeys work here, "Sign in with a passkey" (whose
    script fetches its options)."""
    passkeys = portal_rp(request) is not None
    if passkeys:
        loads_passkey_script(request, fetches=True)
    next_path, signed_out = kept_next(request), request.idle_sign_out
    # A staff member signed out for being idle, or sent here from a console page, logs in to the console: its
    # brand, and no developer sign-up.
    console = (signed_out is not None and signed_out.staff) or next_path.startswith(request.portal_url("clinics") + "/")
    return {"form": form, "next": next_path, "passkeys": passkeys, "signed_out": signed_out,
            "face": CLINIC_CONSOLE if console else DEVELOPER_PORTAL}
