from importlib.resources import files

from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED
from pyramid.view import view_config

from clinicrecords.portal.web.resources import Static

_STATIC = files("clinicrecords.portal.web").joinpath("static")
_STYLESHEET = _STATIC.joinpath("portal.css").read_bytes()
# The passkey ceremonies' script (decision 0086): served now, loaded by the pages that will ask for passkeys.
_PASSKEYS_SCRIPT = _STATIC.joinpath("passkeys.js").read_bytes()
# The copy buttons' script: loaded by a page that shows a key, a secret or a one-time link (web/headers.py).
_COPY_SCRIPT = _STATIC.joinpath("copy.js").read_bytes()


def _static(body, content_type):
    response = Response(body, content_type=content_type, charset="utf-8")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@view_config(route_name="portal", context=Static, name="portal.css", request_method="GET",
             permission=NO_PERMISSION_REQUIRED)
def stylesheet(context, request):
    return _static(_STYLESHEET, "text/css")


@view_config(route_name="portal", context=Static, name="passkeys.js", request_method="GET",
             permission=NO_PERMISSION_REQUIRED)
def passkeys_script(context, request):
    return _static(_PASSKEYS_SCRIPT, "text/javascript")


@view_config(route_name="portal", context=Static, name="copy.js", request_method="GET",
             permission=NO_PERMISSION_REQUIRED)
def copy_script(context, request):
    return _static(_COPY_SCRIPT, "text/javascript")
