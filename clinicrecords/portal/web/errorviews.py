"""The portal's own error pages (HTML), chosen over the API's problem+json views for the portal's route. Each
wears the face the visitor is on, the developer portal or the clinic console, and leads to its home
(`web/faces.py`)."""

import logging

from pyramid.httpexceptions import HTTPException, HTTPFound
from pyramid.view import exception_view_config, forbidden_view_config, notfound_view_config

from clinicrecords.failures import value_free_traceback
from clinicrecords.portal.web.csrf import CSRFRefused
from clinicrecords.portal.web.faces import face_of
from clinicrecords.portal.web.forms import FormError, UnreadableForm

log = logging.getLogger(__name__)
ERROR_PAGE = "clinicrecords.portal.web:templates/error.jinja2"


def _page(request, status, title, message, switch=None):
    request.response.status = status
    face, home = face_of(request)
    return {"title": title, "message": message, "brand": face.brand, "home": home, "home_label": face.home_label,
            "switch": switch}


@notfound_view_config(route_name="portal", renderer=ERROR_PAGE)
def not_found(exc, request):
    return _page(request, 404, "Page not found", "There is no such page, or it is not yours to see.")


@exception_view_config(CSRFRefused, route_name="portal", renderer=ERROR_PAGE)
def csrf_refused(exc, request):
    return _page(request, 403, "Please try again",
                 f"{exc.detail} Nothing was changed: go back, reload the page and submit the form again.")


@exception_view_config(UnreadableForm, route_name="portal", renderer=ERROR_PAGE)
def unreadable_form(exc, request):
    return _page(request, 400, "The form could not be read",
                 f"{exc.detail} Nothing was changed: go back, reload the page and submit the form again.")


@forbidden_view_config(route_name="portal", renderer=ERROR_PAGE)
def forbidden(exc, request):
    if request.identity is None:
        # A page needing a session (an API key counts for nothing here): to the login page, and back after.
        return HTTPFound(request.portal_url("login", next=request.path_qs))
    # A page's resource may say who may do it (the clinic console's roles); else the workspace's owner rule.
    message = getattr(request.context, "forbidden_message", "Only an owner of this workspace can do that.")
    # A page for another kind of account (a workspace's invitation followed signed in as clinic staff) offers to
    # log out and come back to it.
    return _page(request, 403, "Not allowed", message, switch=getattr(request.context, "switch_account", None))


@exception_view_config(HTTPException, route_name="portal", renderer=ERROR_PAGE)
def http_exception(exc, request):
    if exc.status_int < 400:
        return exc  # a redirect
    return _page(request, exc.status_int, exc.title, "The request could not be answered. Nothing was changed.")


@exception_view_config(Exception, route_name="portal", renderer=ERROR_PAGE)
def internal_error(exc, request):
    log.error("unhandled error in portal request %s\n%s", request.request_id, value_free_traceback(exc))
    return _page(request, 500, "Something went wrong", "The page could not be shown. Nothing was changed.")


@exception_view_config(FormError, route_name="portal", renderer=ERROR_PAGE)
def form_refused(exc, request):
    """A form a view read outside its own `except FormError` (every view should catch it and show its page
    with the message): still a 400 naming what was refused, never a 500."""
    return _page(request, 400, "Please check what you entered",
                 f"{exc} Nothing was changed: go back, correct it and submit the form again.")
