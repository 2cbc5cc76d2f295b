"""The team pages, registered on each face's team area by `add_team_pages`: the team with its open
invitations and the invitation form; one person's page (roles, remove); leave; cancel an invitation."""

import uuid


from clinicrecords.identity.services import IInvitationService, ITeamService
from clinicrecords.portal.team.forms import CancelInvitationForm, ConfirmForm, InviteForm, RoleForm
from clinicrecords.portal.web.forms import FormError, rerender
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.reauth import Sensitive

T = "clinicrecords.portal.team:templates/"


# Roles that hold a workspace or a clinic (its keys, its staff): granting one asks "Confirm it's you" first.
CONTROLLING_ROLES = frozenset({"owner", "admin"})


def _team(request):
    return request.find_service(ITeamService)


def _grants_control(form_class):
    def typed(context, request):
        roles = form_class(request.POST).shown("role").split(",")
        return bool(CONTROLLING_ROLES & {role.strip().lower() for role in roles})
    return typed


def _back_to(context, request):
    return context.url()


def _page(context, request, form, link=None, link_gone=False, notice=None, cancel_form=None):
    place = context.place
    return {"form": form, "cancel_form": cancel_form, "link": link, "link_gone": link_gone, "notice": notice,
            "members": _team(request).members(place),
            "invitations": request.find_service(IInvitationService).pending(place.kind, place.id)}


def team_page(context, request):
    shown = shown_once(request, "invitation")  # after an invitation: its link, once, for copying
    if shown.asked:
        request.response.headers["Cache-Control"] = "no-store"
    return _page(context, request, InviteForm({"role": context.invite_role}), link=shown.value,
                 link_gone=shown.gone, notice=shown_once(request, "notice").value)


def invite(context, request):
    form = InviteForm(request.POST)
    try:
        invitation, token = request.find_service(IInvitationService).invite(
            context.place, form["email"], form["role"], request.identity.account_id, request.remote_addr or "")
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_page(context, request, form))
    link = request.application_url + request.portal_url(context.link_page, token=token)
    return see_other_once(request, "invitation", [invitation.email, link], *context.path)


def cancel_invitation(context, request):
    form = CancelInvitationForm(request.POST)
    try:
        try:
            invitation_id = uuid.UUID(form["invitation"])
        except ValueError:
            raise FormError("invitation", "This invitation was already used, cancelled or has expired") from None
        invitation = request.find_service(IInvitationService).cancel(context.place, invitation_id,
                                                                     request.identity.account_id)
    except FormError as exc:
        return rerender(request, **_page(context, request, InviteForm({"role": context.invite_role}),
                                         cancel_form=form.refused(exc)))
    return see_other_once(request, "notice", {
        "title": f"Invitation to {invitation.email} cancelled",
        "message": "Its link no longer works." + (" We told them by email." if invitation.emailed_at else "")},
        *context.path)


def member_page(context, request):
    return {"form": RoleForm({"role": ",".join(context.member.roles)}), "remove_form": ConfirmForm()}


def change_roles(context, request):
    form = RoleForm(request.POST)
    member = context.member
    try:
        roles = _team(request).change_roles(context.area.place, member.account_id, form["role"],
                                            request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, remove_form=ConfirmForm())
    roles = " and ".join(roles)
    if member.account_id == request.identity.account_id:
        return see_other_once(request, "notice", {"title": f"You are now {roles}", "message": None}, *context.area.path)
    return see_other_once(request, "notice", {"title": f"{member.email} is now {roles}",
                                              "message": "We told them by email."}, *context.area.path)


def remove(context, request):
    member = context.member
    try:
        _team(request).remove(context.area.place, member.account_id, request.identity.account_id)
    except FormError as exc:
        return rerender(request, form=RoleForm({"role": ",".join(member.roles)}),
                        remove_form=ConfirmForm().refused(exc))
    return see_other_once(request, "notice", {
        "title": f"{member.email} removed from {context.area.words.where}",
        "message": "We told them by email."}, *context.area.path)


def leave_page(context, request):
    # The only owner (admin) is told at once what to do first, with no button that would only refuse.
    return {"form": ConfirmForm(),
            "refusal": _team(request).leave_refusal(context.place, request.identity.account_id)}


def leave(context, request):
    form = ConfirmForm()
    try:
        _team(request).leave(context.place, request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, form=form, refusal=None)
    return see_other_once(request, "notice", {"title": f"You left {context.place.joining}", "message": None}, "")


def add_team_pages(config, area, see, manage):
    """The shared team pages on a face's area (a `TeamArea`; one person: `area.item_resource`): the team and
    leaving held by `see`, the rest by `manage`."""
    add = config.add_view
    add(team_page, route_name="portal", context=area, request_method="GET", renderer=T + "team.jinja2",
        permission=see)
    add(invite, route_name="portal", context=area, name="invite", request_method="POST", renderer=T + "team.jinja2",
        permission=manage, reauth=Sensitive(when=_grants_control(InviteForm), form=_back_to))
    add(cancel_invitation, route_name="portal", context=area, name="cancel-invitation", request_method="POST",
        renderer=T + "team.jinja2", permission=manage)
    add(leave_page, route_name="portal", context=area, name="leave", request_method="GET",
        renderer=T + "leave.jinja2", permission=see)
    add(leave, route_name="portal", context=area, name="leave", request_method="POST", renderer=T + "leave.jinja2",
        permission=see)
    person = area.item_resource
    add(member_page, route_name="portal", context=person, request_method="GET", renderer=T + "member.jinja2",
        permission=manage)
    add(change_roles, route_name="portal", context=person, name="roles", request_method="POST",
        renderer=T + "member.jinja2", permission=manage, reauth=Sensitive(when=_grants_control(RoleForm),
                                                                          form=_back_to))
    add(remove, route_name="portal", context=person, name="remove", request_method="POST",
        renderer=T + "member.jinja2", permission=manage)
