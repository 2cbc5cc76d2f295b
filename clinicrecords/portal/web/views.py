from importlib.resources import files

from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED
from pyramid.view import view_config

from clinicrecords.portal.web.resources import Static

_STYLESHEET = files("clinicrecords.portal.web").joinpath("static/portal.css").read_bytes()


@view_config(route_name="portal", context=Static, name="portal.css", request_method="GET",
             permission=NO_PERMISSION_REQUIRED)
def stylesheet(context, request):
    response = Response(_STYLESHEET, content_type="text/css", charset="utf-8")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response
