"""Your sessions: where you are signed in (browser and system, address, signed in, last seen), ending any other
or all others (identity's `ISessionService`; each ending is on the audit trail)."""

import uuid

from pyramid.httpexceptions import HTTPNotFound, HTTPSeeOther
from pyramid.security import forget
from pyramid.view import view_config

from clinicrecords.identity.services import ISessionService
from clinicrecords.portal.accounts.forms import EndSessionForm
from clinicrecords.portal.accounts.resources import SessionsPage
from clinicrecords.portal.web.forms import FormError, readable, rerender, see_other
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.portal.web.resources import SIGNED_IN

T = "clinicrecords.portal.accounts:templates/"


def _page(request, form, ended=""):
    identity = request.identity
    return {"sessions": request.find_service(ISessionService).active(identity.account_id),
            "current": identity.session_id, "form": form, "ended": ended}


def _ended(request):
    count = readable(request.GET.get("ended", ""))
    if count == "0":
        return "No other session was signed in"
    if count == "1":
        return "Session ended"
    return f"{count} sessions ended" if count.isdigit() else ""


@view_config(route_name="portal", context=SessionsPage, request_method="GET", renderer=T + "sessions.jinja2",
             permission=SIGNED_IN)
def sessions_page(context, request):
    return _page(request, EndSessionForm(), _ended(request))


def _session_id(text):
    try:
        return uuid.UUID(text)
    except ValueError:
        return None


@view_config(route_name="portal", context=SessionsPage, name="end", request_method="POST",
             renderer=T + "sessions.jinja2", permission=SIGNED_IN)
def end_session(context, request):
    form = EndSessionForm(request.POST)
    identity = request.identity
    try:
        session_id = _session_id(form["session_id"])
    except FormError as exc:
        return rerender(request, **_page(request, form.refused(exc)))
    if session_id == identity.session_id:
        # Ending the session one is using is logging out.
        return HTTPSeeOther(request.portal_url("login"), headers=forget(request))
    # Another person's session, an ended one or no session at all: the same answer, nothing changed.
    if session_id is None or not request.find_service(ISessionService).end_session(identity.account_id, session_id):
        raise HTTPNotFound()
    request.find_service(IPortalAudit).record("session.ended", account_id=identity.account_id,
                                              target=str(session_id))
    return see_other(request, "account", "sessions", ended=1)


@view_config(route_name="portal", context=SessionsPage, name="end-others", request_method="POST",
             permission=SIGNED_IN)
def end_other_sessions(context, request):
    identity = request.identity
    ended = request.find_service(ISessionService).end_all_but(identity.account_id, identity.session_id)
    request.find_service(IPortalAudit).record("session.ended_others", account_id=identity.account_id,
                                              sessions=ended)
    return see_other(request, "account", "sessions", ended=ended)
