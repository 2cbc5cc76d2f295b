from pyramid.view import view_config

from clinicrecords.access.interfaces import ALL_PERMISSIONS
from clinicrecords.clock import now
from clinicrecords.onboarding.interfaces import IBusinessProfile, IDomainVerification
from clinicrecords.portal.clinic_connections.interfaces import IClinicConnections
from clinicrecords.portal.clinic_connections.resources import (AnsweredRequest, ClinicConnection,
                                                               ClinicConnectionsPage, PendingRequest,
                                                               WorkspaceConnectionRequests)
from clinicrecords.portal.web.forms import Form, FormError, rerender, see_other
from clinicrecords.portal.web.resources import CLINIC_ADMIN, MEMBER

T = "clinicrecords.portal.clinic_connections:templates/"


class RequestForm(Form):
    fields = ("clinic_id", "scopes")
    lists = ("scopes",)


class WithdrawForm(Form):
    fields = ("request_id",)


class GrantForm(Form):
    fields = ("scopes", "expires_on")
    lists = ("scopes",)


def _service(request):
    return request.find_service(IClinicConnections)


# The organization's side (developer portal)

def _ask_page(context, request, form, withdraw_form=None):
    return {"form": form, "withdraw_form": withdraw_form or WithdrawForm(), "permissions": sorted(ALL_PERMISSIONS),
            "checked": set(form.shown("scopes")),
            "requests": _service(request).requests_of_workspace(context.workspace.id)}


@view_config(route_name="portal", context=WorkspaceConnectionRequests, request_method="GET",
             renderer=T + "ask.jinja2", permission=MEMBER)
def ask_page(context, request):
    return _ask_page(context, request, RequestForm())


@view_config(route_name="portal", context=WorkspaceConnectionRequests, name="withdraw", request_method="POST",
             renderer=T + "ask.jinja2", permission=MEMBER)
def withdraw(context, request):
    form = WithdrawForm(request.POST)
    # Text that cannot be used is a malformed id like any other: the one answer the service gives.
    request_text = form.shown("request_id") if form.valid else ""
    try:
        _service(request).withdraw(context.workspace.id, request_text, request.identity.account_id)
    except FormError as exc:
        refused = WithdrawForm().refused(exc)
        return rerender(request, **_ask_page(context, request, RequestForm(), withdraw_form=refused))
    return see_other(request, "workspaces", context.workspace.id, "connection-requests", withdrawn=1)


@view_config(route_name="portal", context=WorkspaceConnectionRequests, request_method="POST",
             renderer=T + "ask.jinja2", permission=MEMBER)
def ask(context, request):
    form = RequestForm(request.POST)
    try:
        _service(request).request(context.workspace.id, form["clinic_id"], form["scopes"],
                                  request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_ask_page(context, request, form))
    return see_other(request, "workspaces", context.workspace.id, "connection-requests", sent=1)


# The clinic's side (clinic console)

@view_config(route_name="portal", context=ClinicConnectionsPage, request_method="GET",
             renderer=T + "clinic.jinja2", permission=CLINIC_ADMIN)
def connections(context, request):
    service = _service(request)
    return {"requests": service.requests_of_clinic(context.clinic.id),
            "connections": service.connections(context.clinic.id), "name": service.workspace_name,
            "who": service.deciders(context.clinic.id), "now": now()}


def _decide_page(context, request, form):
    workspace_id = context.connection_request.workspace_id
    return {"form": form, "item": context.connection_request,
            "name": _service(request).workspace_name(workspace_id),
            "domain": request.find_service(IDomainVerification).status(workspace_id),
            "profile": request.find_service(IBusinessProfile).profile(workspace_id),
            "checked": set(form.shown("scopes")) if request.method == "POST"
            else set(context.connection_request.scopes),
            "first_day": _service(request).first_expiry_day(context.clinic)}


@view_config(route_name="portal", context=PendingRequest, request_method="GET", renderer=T + "decide.jinja2",
             permission=CLINIC_ADMIN)
def decide_page(context, request):
    return _decide_page(context, request, GrantForm())


@view_config(route_name="portal", context=PendingRequest, name="approve", request_method="POST",
             renderer=T + "decide.jinja2", permission=CLINIC_ADMIN)
def approve(context, request):
    form = GrantForm(request.POST)
    try:
        _service(request).approve(context.clinic.id, context.connection_request, form["scopes"],
                                  form["expires_on"], request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_decide_page(context, request, form))
    return see_other(request, "clinics", context.clinic.id, "connections", approved=1)


@view_config(route_name="portal", context=PendingRequest, name="decline", request_method="POST",
             permission=CLINIC_ADMIN)
def decline(context, request):
    _service(request).decline(context.clinic.id, context.connection_request, request.identity.account_id)
    return see_other(request, "clinics", context.clinic.id, "connections", declined=1)


@view_config(route_name="portal", context=AnsweredRequest, request_method="GET", renderer=T + "answered.jinja2",
             permission=CLINIC_ADMIN)
def answered(context, request):
    return {"item": context.connection_request,
            "name": _service(request).workspace_name(context.connection_request.workspace_id)}


@view_config(route_name="portal", context=AnsweredRequest, name="approve", request_method="POST",
             renderer=T + "answered.jinja2", permission=CLINIC_ADMIN)
@view_config(route_name="portal", context=AnsweredRequest, name="decline", request_method="POST",
             renderer=T + "answered.jinja2", permission=CLINIC_ADMIN)
def answered_already(context, request):
    """Deciding a request that was answered or withdrawn meanwhile: nothing changes, the page says why."""
    request.response.status = 409
    return {**answered(context, request), "attempted": request.view_name}


def _change_page(context, request, form):
    connection = context.connection
    return {"form": form, "connection": connection, "name": _service(request).workspace_name(
        connection.workspace_id), "checked": set(form.shown("scopes")) if request.method == "POST"
            else set(connection.scopes), "first_day": _service(request).first_expiry_day(context.clinic)}


@view_config(route_name="portal", context=ClinicConnection, request_method="GET",
             renderer=T + "change.jinja2",
             permission=CLINIC_ADMIN)
def change_page(context, request):
    day = _service(request).expiry_day(context.clinic, context.connection.expires_at)
    return _change_page(context, request, GrantForm({"expires_on": day.isoformat() if day else ""}))


@view_config(route_name="portal", context=ClinicConnection, name="narrow", request_method="POST",
             renderer=T + "change.jinja2", permission=CLINIC_ADMIN)
def narrow(context, request):
    form = GrantForm(request.POST)
    try:
        _service(request).narrow(context.clinic.id, context.connection, form["scopes"],
                                 form["expires_on"], request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_change_page(context, request, form))
    return see_other(request, "clinics", context.clinic.id, "connections", narrowed=1)


@view_config(route_name="portal", context=ClinicConnection, name="revoke", request_method="POST",
             permission=CLINIC_ADMIN)
def revoke(context, request):
    _service(request).revoke(context.clinic.id, context.connection, request.identity.account_id)
    return see_other(request, "clinics", context.clinic.id, "connections", revoked=1)
