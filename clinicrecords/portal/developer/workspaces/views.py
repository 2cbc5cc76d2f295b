from pyramid.httpexceptions import HTTPSeeOther
from pyramid.view import view_config

from clinicrecords.portal.developer.keys.interfaces import ILiveKeyGate
from clinicrecords.portal.web.forms import FormError, rerender
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.resources import MEMBER, OWNER, SIGNED_IN, PortalRoot
from clinicrecords.portal.developer.workspaces.forms import CloseForm, WorkspaceForm
from clinicrecords.portal.developer.workspaces.interfaces import IWorkspaceService
from clinicrecords.portal.developer.workspaces.resources import (Activity, CloseWorkspace, WorkspaceResource,
                                                                 WorkspacesCollection)

T = "clinicrecords.portal.developer.workspaces:templates/"


@view_config(route_name="portal", context=PortalRoot, request_method="GET", renderer=T + "list.jinja2",
             permission=SIGNED_IN)
def workspaces(context, request):
    service = request.find_service(IWorkspaceService)
    account_id = request.identity.account_id
    return {"memberships": service.memberships(account_id), "closed": service.closed_for(account_id),
            "notice": shown_once(request, "notice").value}


@view_config(route_name="portal", context=WorkspacesCollection, request_method="GET", permission=SIGNED_IN)
def workspaces_index(context, request):
    return HTTPSeeOther(request.portal_url(""))


@view_config(route_name="portal", context=WorkspacesCollection, name="new", request_method="GET",
             renderer=T + "new.jinja2", permission=SIGNED_IN)
def new_workspace_page(context, request):
    return {"form": WorkspaceForm()}


@view_config(route_name="portal", context=WorkspacesCollection, name="new", request_method="POST",
             renderer=T + "new.jinja2", permission=SIGNED_IN)
def create_workspace(context, request):
    form = WorkspaceForm(request.POST)
    try:
        workspace = request.find_service(IWorkspaceService).create(request.identity.account_id, form["name"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form)
    return HTTPSeeOther(request.portal_url("workspaces", workspace.id, created=1))


@view_config(route_name="portal", context=WorkspaceResource, request_method="GET", renderer=T + "overview.jinja2",
             permission=MEMBER)
def overview(context, request):
    gate = request.find_service(ILiveKeyGate).acting(request.identity.account_id)
    checklist = gate.checklist(context.workspace.id)
    return {"checklist": checklist, "missing": [item.condition for item in checklist if not item.met]}


@view_config(route_name="portal", context=CloseWorkspace, request_method="GET", renderer=T + "close.jinja2",
             permission=OWNER, reauth=True)
def close_page(context, request):
    return {"form": CloseForm()}


@view_config(route_name="portal", context=CloseWorkspace, request_method="POST", renderer=T + "close.jinja2",
             permission=OWNER, reauth=True)
def close(context, request):
    form = CloseForm(request.POST)
    try:
        request.find_service(IWorkspaceService).close(context.workspace, request.identity.account_id, form["name"])
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form)
    return see_other_once(request, "notice", {
        "title": f"Workspace {context.workspace.name} closed",
        "message": "Its keys are revoked, its webhook endpoints deleted, its connections ended and its sandbox "
                   "removed. We told every member by email."}, "")


@view_config(route_name="portal", context=Activity, request_method="GET", renderer=T + "activity.jinja2",
             permission=MEMBER)
def activity(context, request):
    """The workspace's audit trail: who did what, when."""
    return {"entries": request.find_service(IWorkspaceService).activity(context.workspace.id)}
