"""Security headers on every portal answer. Pages load only the portal's own stylesheet: no script, no inline
style, nothing framed, no referrer leaving the portal. The passkey pages (decision 0086) alone load the portal's one
script, `/static/passkeys.js`: the view says so (`loads_passkey_script`) and that answer's policy adds
`script-src 'self'`, and `connect-src 'self'` when the script fetches its options. A page that shows a copy
button (a key, a secret, a one-time link) loads `/static/copy.js` the same way: its template asks
`request.copy_script()` as it renders the button, and that answer's policy adds `script-src 'self'`.

The portal's one route adds them to its request's answer as a response callback (`add_portal_headers`), whatever
view or error page answers it."""

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


def copy_script(request):
    """`request.copy_script()`, asked by the template that renders a copy button: this answer allows
    `script-src 'self'` and the page loads `/static/copy.js`. The script's URL the first time a page asks, None
    after (one tag a page)."""
    first = not request.state.portal_copy_script
    request.state.portal_copy_script = True
    return request.portal_url("static", "copy.js") if first else None


def add_portal_headers(request, response):
    headers = response.headers
    for name, value in PORTAL_HEADERS.items():
        headers[name] = value
    state = request.state
    script = state.portal_passkey_script or ("inline" if state.portal_copy_script else None)
    if script is not None and response.content_type == "text/html":
        headers["Content-Security-Policy"] += SCRIPT_SOURCES[script]
    headers.setdefault("Cache-Control", "no-store")
