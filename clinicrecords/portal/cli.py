"""`portal ...` operator commands: what an operator does for the portal without a browser (the clinic
console's `clinic staff ...` are in `staff/cli.py`)."""

from clinicrecords.access.services import open_workspace
from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.identity.services import WORKSPACE_ROLES, IInvitationService, Place
from clinicrecords.portal.console.staff import cli as staff_cli
from clinicrecords.portal.surface import portal_base_url
from clinicrecords.settings import app_settings


def register(commands):
    portal = commands.add_parser("portal", help="the developer portal").add_subparsers(dest="action", required=True)
    invite = portal.add_parser("invite-link", help="invite someone to a workspace by email; prints the one-time "
                                                   "link too")
    invite.add_argument("--workspace", type=uuid_arg, required=True, metavar="WORKSPACE_ID")
    invite.add_argument("--email", required=True)
    invite.add_argument("--role", choices=WORKSPACE_ROLES, default="owner")
    invite.set_defaults(handler=invite_link)
    staff_cli.register(commands)


def invite_link(request, args):
    workspace = open_workspace(request.db, args.workspace)  # an unknown or closed workspace: exit 2 naming it
    invitation, token = request.find_service(IInvitationService).invite(
        Place("workspace", workspace.id, workspace.name), args.email, args.role, invited_by=None)
    return {"workspace_id": str(args.workspace), "email": invitation.email, "role": invitation.role,
            "emailed": invitation.emailed_at is not None,
            "invitation_url": f"{portal_base_url(app_settings(request.registry))}/invitations?token={token}",
            "expires_at": invitation.expires_at.isoformat()}
