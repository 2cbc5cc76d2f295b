"""The invitation link's page, registered on each face's link by `add_invitation_pages`."""

from pyramid.httpexceptions import HTTPSeeOther
from pyramid.security import NO_PERMISSION_REQUIRED, remember

from clinicrecords.identity.services import IInvitationService
from clinicrecords.portal.invitations.forms import JoinForm
from clinicrecords.portal.invitations.resources import InvitationGone
from clinicrecords.portal.web.faces import face_of
from clinicrecords.portal.web.forms import FormError, rerender

TEMPLATE = "clinicrecords.portal.invitations:templates/invitation.jinja2"
GONE = "clinicrecords.portal.invitations:templates/gone.jinja2"
GONE_VIEW = "portal.invitations.gone_view"  # set once the page of a link that no longer works is registered

# What a link that no longer works says happened, and what to do: (status, title, message).
GONE_WORDS = {
    "used": (410, "This invitation was already used",
             "Its link works once, and someone has joined with it. If it was you, you are in: log in with the "
             "invited address to open its pages."),
    "cancelled": (410, "This invitation was cancelled",
                  "The person who invited you cancelled it, so its link no longer works. If you still expect to "
                  "join, ask them for a new invitation."),
    "expired": (410, "This invitation has expired",
                "Its link worked for 7 days. Ask the person who invited you for a new invitation."),
    None: (404, "This invitation link does not work",
           "No invitation has this link: check that you copied the whole link from the email, or ask the person "
           "who invited you for a new invitation."),
}


def _page(context, request, form):
    invitation = context.invitation  # read before joining: the invitation is still open
    identity = request.identity
    return {"form": form, "invitation": invitation, "target": context.target_name(invitation),
            "wrong_account": context.wrong_account(),
            "needs_password": context.sets_password and request.find_service(IInvitationService).needs_password(
                invitation),
            "signed_in": identity is not None}


def invitation_page(context, request):
    page = _page(context, request, JoinForm())
    if page["wrong_account"]:
        request.response.status = 403  # this account can never join here: the page says why, and how to switch
    return page


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


def invitation_gone(exc, request):
    """A link whose invitation was used, cancelled or has expired (or never was) says which, on the link's
    face, for a GET and a POST alike."""
    status, title, message = GONE_WORDS[exc.state]
    request.response.status = status
    face, home = face_of(request)
    return {"title": title, "message": message, "state": exc.state or "unknown", "brand": face.brand,
            "home": home, "home_label": face.home_label, "signed_in": request.identity is not None}


def add_invitation_pages(config, link, join_permission):
    """The page on a face's invitation link (`link`, an `InvitationLink`): shown to anyone holding it; joining
    needs `join_permission` (signed in for a workspace's; none for a clinic's, whose page can create the
    account)."""
    config.add_view(invitation_page, route_name="portal", context=link, request_method="GET", renderer=TEMPLATE,
                    permission=NO_PERMISSION_REQUIRED)
    config.add_view(join, route_name="portal", context=link, request_method="POST", renderer=TEMPLATE,
                    permission=join_permission)
    if not config.registry.get(GONE_VIEW):  # one view for both faces' links
        config.registry[GONE_VIEW] = True
        config.add_exception_view(invitation_gone, context=InvitationGone, route_name="portal", renderer=GONE)
