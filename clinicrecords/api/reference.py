"""GET /v1/docs: a browsable reference rendered from /v1/openapi.json by Redoc, served from this package. And the
front door, GET /: a browser that opens the service's address is shown the way to the developer portal and to
this reference; any other client gets the API's 404, as before (the API lives under /v1).

Redoc's standalone bundle (npm `redoc` 2.5.1, MIT, `static/redoc.LICENSE`) is vendored: no CDN, so the page
works offline and a strict Content-Security-Policy holds (scripts only from here; Redoc injects its styles
and runs its search index in a blob: worker)."""

from html import escape
from importlib.resources import files

from pyramid.httpexceptions import HTTPNotFound
from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED

from clinicrecords.api.public_url import PORTAL_PATH, portal_base_url
from clinicrecords.resources import Resource, Root
from clinicrecords.settings import app_settings

REDOC_VERSION = "2.5.1"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Clinic Records API reference</title>
</head>
<body>
<redoc spec-url="{spec_url}"></redoc>
<script src="{script_url}"></script>
</body>
</html>
"""


FRONT_DOOR_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; " \
                 "frame-ancestors 'none'"

FRONT_DOOR = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Clinic Records API</title>
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; color: #1d2a35; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; }}
h1 {{ font-size: 1.5rem; margin-bottom: .25rem; }}
ul {{ padding: 0; list-style: none; }}
li {{ margin: 1rem 0; }}
a {{ font-weight: 600; color: #0b5cad; }}
code {{ font-size: .95em; }}
</style>
</head>
<body>
<h1>Clinic Records API</h1>
<p>A server-to-server JSON API for software connected to clinics: its routes are under <code>/v1</code>.</p>
<ul>
<li><a href="{portal}">Developer portal</a>: sign up, create a workspace, get a test key; clinic staff sign in
here too.</li>
<li><a href="{reference}">API reference</a>: every route, its inputs, answers and errors.</li>
</ul>
</body>
</html>
"""


def front_door(context, request):
    """GET /: for a browser (its Accept names text/html), the way to the portal and the reference; for any
    other client the API's 404, unchanged."""
    if "text/html" not in request.headers.get("Accept", ""):
        raise HTTPNotFound()
    settings = app_settings(request.registry)
    portal = portal_base_url(settings) if settings.portal.url or settings.portal.host \
        else request.application_url + PORTAL_PATH
    body = FRONT_DOOR.format(portal=escape(portal + "/"), reference=escape(request.application_url + "/v1/docs"))
    response = Response(body, content_type="text/html", charset="utf-8")
    response.headers["Content-Security-Policy"] = FRONT_DOOR_CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


class ReferencePage(Resource):
    """/v1/docs"""

    public = True


def _bundle():
    return files("clinicrecords.api").joinpath("static/redoc.standalone.js").read_bytes()


def reference_page(context, request):
    body = PAGE.format(spec_url=request.resource_url(context.__parent__, "openapi.json"),
                       script_url=request.resource_url(context, "redoc.standalone.js"))
    response = Response(body, content_type="text/html", charset="utf-8")
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def redoc_bundle(context, request):
    response = Response(_bundle(), content_type="text/javascript", charset="utf-8")
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.cache_control.public = True
    response.cache_control.max_age = 86400
    return response


def includeme(config):
    config.add_view(front_door, context=Root, name="", request_method="GET", permission=NO_PERMISSION_REQUIRED)
    config.add_api_resource("docs", ReferencePage, public=True)
    config.add_view(reference_page, context=ReferencePage, request_method="GET", permission=NO_PERMISSION_REQUIRED,
                    openapi={"summary": "This API's reference, browsable (HTML)", "answer": {"type": "string"},
                             "media_type": "text/html"})
    config.add_view(redoc_bundle, context=ReferencePage, name="redoc.standalone.js", request_method="GET",
                    permission=NO_PERMISSION_REQUIRED,
                    openapi={"summary": f"The reference page's script (Redoc {REDOC_VERSION}, MIT)",
                             "answer": {"type": "string"}, "media_type": "text/javascript"})
