"""`account reset-link --email E`: a password reset link for someone whose email does not work, to hand over
by another channel (audited; no message is sent). `account reset-factors --email E`: remove the second factors
of someone who lost them (audited; every session ended; the person is mailed)."""

from clinicrecords.identity.interfaces import IFactorService, IRecoveryService


def register(commands):
    account = commands.add_parser("account", help="people's accounts").add_subparsers(dest="action",
                                                                                        required=True)
    reset = account.add_parser("reset-link", help="make a password reset link (one hour, single use; older "
                                                  "links stop working) and print it; no email is sent")
    reset.add_argument("--email", required=True)
    reset.set_defaults(handler=reset_link)
    factors = account.add_parser("reset-factors", help="remove every second factor and recovery code of an account "
                                                       "and end its sessions (audited; the person is mailed)")
    factors.add_argument("--email", required=True)
    factors.set_defaults(handler=reset_factors)


def reset_link(request, args):
    issued = request.find_service(IRecoveryService).operator_reset_link(args.email)
    return {"email": issued.email, "reset_url": issued.url, "expires_at": issued.expires_at.isoformat()}


def reset_factors(request, args):
    return request.find_service(IFactorService).reset(args.email)
