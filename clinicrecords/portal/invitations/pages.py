"""The invitation link's page, registered on each face's link by `add_invitation_pages`."""

from pyramid.httpexceptions import HTTPSeeOther
from pyramid.security import NO_PERMISSION_REQUIRED, remember

from clinicrecords.identity.services import IInvitationService
from clinicrecords.portal.invitations.forms import JoinForm
from clinicrecords.portal.web.forms import FormError, rerender

TEMPLATE = "clinicrecords.portal.invitations:templates/invitation.jinja2"


def _page(context, request, form):
    invitation = context.invitation  # read before joining: the invitation is still open
    identity = request.identity
    return {"form": form, "invitation": invitation, "target": context.target_name(invitation),
            "needs_password": context.sets_password and request.find_service(IInvitationService).needs_password(
                invitation),
            "signed_in": identity is not None}


def invitation_page(context, request):
    return _page(context, request, JoinForm())


def join(context, request):
    form = JoinForm(request.POST)
    identity = request.identity
    page = _page(context, request, form)
    try:
        account_id, invitation = request.find_service(IInvitationService).accept(
            context.token, identity.account_id if identity else None,
            form["password"] if page["needs_password"] else None, kind=context.kind)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **page)
    headers = remember(request, account_id) if identity is None else None
    return HTTPSeeOther(request.portal_url(*context.joined_path(invitation), joined=1), headers=headers)


def add_invitation_pages(config, link, join_permission):
    """The page on a face's invitation link (`link`, an `InvitationLink`): shown to anyone holding it; joining
    needs `join_permission` (signed in for a workspace's; none for a clinic's, whose page can create the
    account)."""
    config.add_view(invitation_page, route_name="portal", context=link, request_method="GET", renderer=TEMPLATE,
                    permission=NO_PERMISSION_REQUIRED)
    config.add_view(join, route_name="portal", context=link, request_method="POST", renderer=TEMPLATE,
                    permission=join_permission)
