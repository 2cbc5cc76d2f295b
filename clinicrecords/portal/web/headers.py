"""Security headers on every portal answer. Pages load only the portal's own stylesheet: no script, no inline
style, nothing framed, no referrer leaving the portal. The passkey pages (decision 0086) alone load the portal's one
script, `/static/passkeys.js`: the view says so (`loads_passkey_script`) and that answer's policy adds
`script-src 'self'`, and `connect-src 'self'` when the script fetches its options."""

from pyramid.events import NewResponse

PORTAL_HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                                "base-uri 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}


SCRIPT_SOURCES = {"inline": "; script-src 'self'", "fetches": "; script-src 'self'; connect-src 'self'"}


def loads_passkey_script(request, fetches=False):
    """The page this view answers loads `/static/passkeys.js` (with its options inline, or fetching them)."""
    request.state.portal_passkey_script = "fetches" if fetches else "inline"


def add_portal_headers(event):
    if getattr(event.request, "surface", None) != "portal":
        return
    headers = event.response.headers
    for name, value in PORTAL_HEADERS.items():
        headers[name] = value
    script = event.request.state.portal_passkey_script
    if script is not None and event.response.content_type == "text/html":
        headers["Content-Security-Policy"] += SCRIPT_SOURCES[script]
    headers.setdefault("Cache-Control", "no-store")


def includeme(config):
    config.add_subscriber(add_portal_headers, NewResponse)
