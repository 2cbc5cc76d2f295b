"""Cross-site request forgery: every state-changing portal request carries the form's token and, when the
browser says where it comes from (Origin, else Referer), comes from the portal's own origin.

Signed in, the token is the session's own (a new one with every session). Before signing in (sign up, log
in), it is a random value in a cookie of its own that the form repeats (double submit). A failed check
raises `CSRFRefused`, which the portal answers with a page asking to reload the form; nothing is changed.
"""

import hmac
from urllib.parse import urlsplit

from pyramid.httpexceptions import HTTPForbidden

from clinicrecords.identity.services import new_token
from clinicrecords.portal.web.forms import check_readable_body

FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class CSRFRefused(HTTPForbidden):
    pass


def _origin_of(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else None


class CSRFGuard:
    def __init__(self, cookie_name, secure, path):
        self.cookie_name = cookie_name
        self.secure = secure
        self.path = path

    def token(self, request):
        """The token forms repeat; sets the pre-sign-in cookie when the browser has none yet."""
        identity = request.identity
        if identity is not None:
            return identity.csrf_token
        token = request.cookies.get(self.cookie_name)
        if not token:
            token = request.state.portal_csrf_cookie
            if token is None:
                token = request.state.portal_csrf_cookie = new_token()
                request.add_response_callback(self._set_cookie(token))
        return token

    def _set_cookie(self, token):
        def callback(request, response):
            response.set_cookie(self.cookie_name, token, path=self.path, httponly=True, samesite="Lax",
                                secure=self.secure)
        return callback

    def check(self, request):
        if request.method in SAFE_METHODS:
            return
        expected_origin = _origin_of(request.host_url)
        claimed = request.headers.get("Origin")
        if claimed is not None:
            if claimed.lower() != expected_origin:
                raise CSRFRefused("The form came from another site.")
        else:
            referer = request.headers.get("Referer")
            if referer and _origin_of(referer) != expected_origin:
                raise CSRFRefused("The form came from another site.")
        check_readable_body(request)  # before anything reads the form
        sent = request.POST.get(FIELD, "")
        expected = request.identity.csrf_token if request.identity is not None else request.cookies.get(
            self.cookie_name, "")
        if not sent or not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
            raise CSRFRefused("The form has expired.")


# The portal's CSRFGuard, kept in the registry by clinicrecords.portal.web.
CSRF_GUARD = "portal.csrf"


def csrf_deriver(view, info):
    """Every portal view (route `portal`) checks CSRF on unsafe methods; no view can forget to."""
    if info.exception_only or info.options.get("route_name") != "portal":
        return view

    def guarded_view(context, request):
        request.registry[CSRF_GUARD].check(request)
        return view(context, request)

    return guarded_view
