"""GET /v1/docs: a browsable reference rendered from /v1/openapi.json by Redoc, served from this package.

Redoc's standalone bundle (npm `redoc` 2.5.1, MIT, `static/redoc.LICENSE`) is vendored: no CDN, so the page
works offline and a strict Content-Security-Policy holds (scripts only from here; Redoc injects its styles
and runs its search index in a blob: worker)."""

from importlib.resources import files

from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED

from clinicrecords.resources import Resource

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
    config.add_api_resource("docs", ReferencePage, public=True)
    config.add_view(reference_page, context=ReferencePage, request_method="GET", permission=NO_PERMISSION_REQUIRED,
                    openapi={"summary": "This API's reference, browsable (HTML)", "answer": {"type": "string"},
                             "media_type": "text/html"})
    config.add_view(redoc_bundle, context=ReferencePage, name="redoc.standalone.js", request_method="GET",
                    permission=NO_PERMISSION_REQUIRED,
                    openapi={"summary": f"The reference page's script (Redoc {REDOC_VERSION}, MIT)",
                             "answer": {"type": "string"}, "media_type": "text/javascript"})
