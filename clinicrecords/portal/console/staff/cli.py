"""`clinic staff add`: an operator adds a clinic's first staff member (or any other), printing the one-time
link where they set their password (no mail server is needed)."""

import argparse

from clinicrecords.access.services import get_clinic
from clinicrecords.cli import command_group
from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.identity.services import STAFF_ROLES, IInvitationService, staff_roles_stored
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
    add = staff.add_parser("add", help="invite a staff member; prints the one-time set-password link")
    add.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    add.add_argument("--email", required=True)
    add.add_argument("--role", type=staff_roles_arg, required=True, metavar="admin|clinician|admin,clinician")
    add.set_defaults(handler=staff_add)


def staff_add(request, args):
    get_clinic(request.db, args.clinic)  # an unknown clinic: exit 2 naming it
    invitation, token = request.find_service(IInvitationService).invite("clinic", args.clinic, args.email, args.role,
                                                                        invited_by=None)
    link = f"{portal_base_url(app_settings(request.registry))}/staff-invitations?token={token}"
    return {"clinic_id": str(args.clinic), "email": invitation.email, "role": invitation.role,
            "roles": list(invitation.roles), "set_password_url": link,
            "expires_at": invitation.expires_at.isoformat()}
