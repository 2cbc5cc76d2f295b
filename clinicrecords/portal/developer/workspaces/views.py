from pyramid.httpexceptions import HTTPSeeOther
from pyramid.view import view_config

from clinicrecords.identity.services import IInvitationService, IMembershipService
from clinicrecords.portal.developer.keys.interfaces import ILiveKeyGate
from clinicrecords.portal.web.forms import FormError, rerender
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.reauth import Sensitive
from clinicrecords.portal.web.resources import MEMBER, OWNER, SIGNED_IN, PortalRoot
from clinicrecords.portal.developer.workspaces.forms import InviteForm, WorkspaceForm
from clinicrecords.portal.developer.workspaces.interfaces import IWorkspaceService
from clinicrecords.portal.developer.workspaces.resources import (Activity, Members, WorkspaceResource,
                                                                 WorkspacesCollection)

T = "clinicrecords.portal.developer.workspaces:templates/"


def invitation_url(request, token):
    return request.application_url + request.portal_url("invitations", token=token)


@view_config(route_name="portal", context=PortalRoot, request_method="GET", renderer=T + "list.jinja2",
             permission=SIGNED_IN)
def workspaces(context, request):
    return {"memberships": request.find_service(IWorkspaceService).memberships(request.identity.account_id)}


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


@view_config(route_name="portal", context=Members, request_method="GET", renderer=T + "members.jinja2",
             permission=MEMBER)
def members(context, request):
    # After an invitation: its link, once (no mail server: the owner passes it on).
    shown = shown_once(request, "invitation")
    if shown.asked:
        request.response.headers["Cache-Control"] = "no-store"
    return _members_page(context, request, InviteForm({"role": "developer"}), link=shown.value,
                         link_gone=shown.gone)


def _members_page(context, request, form, link=None, link_gone=False):
    workspace_id = context.workspace.id
    return {"members": request.find_service(IMembershipService).workspace_members(workspace_id),
            "invitations": request.find_service(IInvitationService).pending("workspace", workspace_id),
            "form": form, "link": link, "link_gone": link_gone}


def _invites_owner(context, request):
    return InviteForm(request.POST).shown("role").strip().lower() == "owner"


def _members_page_path(context, request):
    return request.portal_url("workspaces", context.workspace.id, "members")


@view_config(route_name="portal", context=Members, name="invite", request_method="POST",
             renderer=T + "members.jinja2", permission=OWNER,
             reauth=Sensitive(when=_invites_owner, form=_members_page_path))
def invite(context, request):
    form = InviteForm(request.POST)
    try:
        invitation, token = request.find_service(IInvitationService).invite(
            "workspace", context.workspace.id, form["email"], form["role"], request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_members_page(context, request, form))
    return see_other_once(request, "invitation", [invitation.email, invitation_url(request, token)], "workspaces",
                          context.workspace.id, "members")


@view_config(route_name="portal", context=Activity, request_method="GET", renderer=T + "activity.jinja2",
             permission=MEMBER)
def activity(context, request):
    """The workspace's audit trail: who did what, when."""
    return {"entries": request.find_service(IWorkspaceService).activity(context.workspace.id)}
