from pyramid.view import view_config

from clinicrecords.identity.services import IInvitationService, IMembershipService
from clinicrecords.portal.console.staff.forms import StaffInviteForm
from clinicrecords.portal.console.staff.resources import Staff
from clinicrecords.portal.web.forms import FormError, rerender
from clinicrecords.portal.web.once import see_other_once, shown_once
from clinicrecords.portal.web.reauth import Sensitive
from clinicrecords.portal.web.resources import CLINIC_ADMIN, CLINIC_STAFF

T = "clinicrecords.portal.console.staff:templates/"


def join_url(request, token):
    return request.application_url + request.portal_url("staff-invitations", token=token)


def _staff_page(context, request, form, link=None, link_gone=False):
    return {"form": form, "link": link, "link_gone": link_gone,
            "members": request.find_service(IMembershipService).staff_members(context.clinic.id),
            "invitations": request.find_service(IInvitationService).pending("clinic", context.clinic.id)}


@view_config(route_name="portal", context=Staff, request_method="GET", renderer=T + "staff.jinja2",
             permission=CLINIC_STAFF)
def staff(context, request):
    shown = shown_once(request, "invitation")  # after an invitation: its link, once
    if shown.asked:
        request.response.headers["Cache-Control"] = "no-store"
    return _staff_page(context, request, StaffInviteForm({"role": "clinician"}), link=shown.value,
                       link_gone=shown.gone)


def _invites_admin(context, request):
    return "admin" in [role.strip().lower() for role in StaffInviteForm(request.POST).shown("role").split(",")]


def _staff_page_path(context, request):
    return request.portal_url("clinics", context.clinic.id, "staff")


@view_config(route_name="portal", context=Staff, name="invite", request_method="POST",
             renderer=T + "staff.jinja2", permission=CLINIC_ADMIN,
             reauth=Sensitive(when=_invites_admin, form=_staff_page_path))
def invite(context, request):
    form = StaffInviteForm(request.POST)
    try:
        invitation, token = request.find_service(IInvitationService).invite(
            "clinic", context.clinic.id, form["email"], form["role"], request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_staff_page(context, request, form))
    return see_other_once(request, "invitation", [invitation.email, join_url(request, token)], "clinics",
                          context.clinic.id, "staff")
