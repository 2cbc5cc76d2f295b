"""`account reset-link --email E`: a password reset link for someone whose email does not work, to hand over
by another channel (audited; no message is sent)."""

from clinicrecords.identity.interfaces import IRecoveryService


def register(commands):
    account = commands.add_parser("account", help="people's accounts").add_subparsers(dest="action",
                                                                                        required=True)
    reset = account.add_parser("reset-link", help="make a password reset link (one hour, single use; older "
                                                  "links stop working) and print it; no email is sent")
    reset.add_argument("--email", required=True)
    reset.set_defaults(handler=reset_link)


def reset_link(request, args):
    issued = request.find_service(IRecoveryService).operator_reset_link(args.email)
    return {"email": issued.email, "reset_url": issued.url, "expires_at": issued.expires_at.isoformat()}
