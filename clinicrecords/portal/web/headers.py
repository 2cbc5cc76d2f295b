"""Security headers on every portal answer. Pages load only the portal's own stylesheet: no script (the
passkeys script is served for the pages of issue 34 to come, which will allow it on themselves alone), no
inline style, nothing framed, no referrer leaving the portal."""

from pyramid.events import NewResponse

PORTAL_HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                                "base-uri 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def add_portal_headers(event):
    if getattr(event.request, "surface", None) != "portal":
        return
    headers = event.response.headers
    for name, value in PORTAL_HEADERS.items():
        headers[name] = value
    headers.setdefault("Cache-Control", "no-store")


def includeme(config):
    config.add_subscriber(add_portal_headers, NewResponse)
