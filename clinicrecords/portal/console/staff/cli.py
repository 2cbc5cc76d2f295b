"""`clinic staff add`: an operator invites a clinic's staff member (its first, or any other); the link is
emailed and printed (the one-time link where they set their password). `clinic create --admin-email E` does
the same for a new clinic's first admin: the clinics context names no person (it imports no identity), so the
portal, which composes both, adds the option to the clinics' command here."""

import argparse
import uuid

from clinicrecords.access.services import get_clinic
from clinicrecords.cli import command_group
from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.identity.services import STAFF_ROLES, IInvitationService, Place, staff_roles_stored
from clinicrecords.portal.surface import portal_base_url
from clinicrecords.settings import app_settings


def staff_roles_arg(text):
    """argparse type: `admin`, `clinician` or both, comma-separated (`admin,clinician`)."""
    roles = [role.strip() for role in text.split(",")]
    if not roles or any(role not in STAFF_ROLES for role in roles) or len(set(roles)) != len(roles):
        raise argparse.ArgumentTypeError("give admin, clinician or admin,clinician")
    return staff_roles_stored(roles)


def register(commands):
    clinic = command_group(commands, "clinic", help="clinics (tenants)")
    staff = clinic.add_parser("staff", help="a clinic's console staff").add_subparsers(dest="staff_action",
                                                                                         required=True)
    add = staff.add_parser("add", help="invite a staff member by email; prints the one-time set-password link too")
    add.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    add.add_argument("--email", required=True)
    add.add_argument("--role", type=staff_roles_arg, required=True, metavar="admin|clinician|admin,clinician")
    add.set_defaults(handler=staff_add)
    _with_admin_email(clinic.choices["create"])


def invite_staff(request, clinic_id, email, roles):
    """Invite by email (an operator's: no inviter) and answer the invitation as the commands print it."""
    clinic = get_clinic(request.db, clinic_id)  # an unknown clinic: exit 2 naming it
    invitation, token = request.find_service(IInvitationService).invite(
        Place("clinic", clinic.id, clinic.name), email, roles, invited_by=None)
    link = f"{portal_base_url(app_settings(request.registry))}/staff-invitations?token={token}"
    return invitation, {"email": invitation.email, "set_password_url": link,
                        "expires_at": invitation.expires_at.isoformat()}


def staff_add(request, args):
    invitation, printed = invite_staff(request, args.clinic, args.email, args.role)
    return {"clinic_id": str(args.clinic), "email": printed["email"], "role": invitation.role,
            "roles": list(invitation.roles), "set_password_url": printed["set_password_url"],
            "expires_at": printed["expires_at"]}


def _with_admin_email(create):
    """`clinic create --admin-email E`: the new clinic's first admin invited in the same transaction (a refused
    email creates no clinic either); the output gains `admin_invitation`."""
    create_clinic = create.get_default("handler")
    create.add_argument("--admin-email", metavar="EMAIL",
                        help="invite the clinic's first admin: the link is emailed and printed")

    def clinic_create(request, args):
        created = create_clinic(request, args)
        if args.admin_email is not None:
            _, created["admin_invitation"] = invite_staff(request, uuid.UUID(created["clinic_id"]), args.admin_email,
                                                          ["admin"])
        return created

    create.set_defaults(handler=clinic_create)
