"""`clinic staff add`: an operator adds a clinic's first staff member (or any other), printing the one-time
link where they set their password (no mail server is needed)."""

from clinicrecords.access.services import get_clinic
from clinicrecords.cli import command_group
from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.portal.surface import portal_base_url
from clinicrecords.settings import app_settings
from clinicrecords.portal.staff.interfaces import IStaffService
from clinicrecords.portal.staff.models import ROLES


def register(commands):
    clinic = command_group(commands, "clinic", help="clinics (tenants)")
    staff = clinic.add_parser("staff", help="a clinic's console staff").add_subparsers(dest="staff_action",
                                                                                         required=True)
    add = staff.add_parser("add", help="invite a staff member; prints the one-time set-password link")
    add.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    add.add_argument("--email", required=True)
    add.add_argument("--role", choices=ROLES, required=True)
    add.set_defaults(handler=staff_add)


def staff_add(request, args):
    get_clinic(request.db, args.clinic)  # an unknown clinic: exit 2 naming it
    invitation, token = request.find_service(IStaffService).invite(args.clinic, args.email, args.role,
                                                                   invited_by=None)
    link = f"{portal_base_url(app_settings(request.registry))}/staff-invitations?token={token}"
    return {"clinic_id": str(args.clinic), "email": invitation.email, "role": invitation.role,
            "set_password_url": link,
            "expires_at": invitation.expires_at.isoformat()}
