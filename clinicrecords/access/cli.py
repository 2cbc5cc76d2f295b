import argparse
import datetime

from clinicrecords.access import services
from clinicrecords.access.interfaces import ILiveKeyGate
from clinicrecords.cli.arguments import datetime_arg, positive_int_arg, scopes_arg, uuid_arg
from clinicrecords.sandbox import seed_sandbox


def _pepper(request):
    return request.registry.settings["secrets.key_pepper"]


def register(commands):
    _register_workspace(commands)
    _register_key(commands)
    _register_connection(commands)
    _register_usage(commands)


def _register_workspace(commands):
    workspace = commands.add_parser("workspace", help="organizations' workspaces").add_subparsers(
        dest="action", required=True)
    create = workspace.add_parser("create", help="create a workspace and its seeded sandbox clinic")
    create.add_argument("--name", required=True)
    create.add_argument("--verified", action="store_true")
    create.add_argument("--paid", action="store_true")
    create.add_argument("--terms-accepted", action="store_true")
    create.set_defaults(handler=workspace_create)

    change = workspace.add_parser("set", help="change verification, plan or terms")
    change.add_argument("workspace_id", type=uuid_arg, metavar="WORKSPACE_ID")
    verified = change.add_mutually_exclusive_group()
    verified.add_argument("--verified", dest="verified", action="store_const", const=True)
    verified.add_argument("--unverified", dest="verified", action="store_const", const=False)
    plan = change.add_mutually_exclusive_group()
    plan.add_argument("--paid", dest="paid", action="store_const", const=True)
    plan.add_argument("--sandbox-plan", dest="paid", action="store_const", const=False)
    change.add_argument("--terms-accepted", dest="terms_accepted", action="store_const", const=True)
    change.set_defaults(handler=workspace_set)


def workspace_create(request, args):
    workspace = services.create_workspace(
        request.db, args.name, verified=args.verified, paid=args.paid, terms_accepted=args.terms_accepted,
        seed=lambda db, clinic: seed_sandbox(request, clinic),
    )
    return {"workspace_id": str(workspace.id), "sandbox_clinic_id": str(workspace.sandbox_clinic_id)}


def workspace_set(request, args):
    workspace = services.set_workspace(request.db, args.workspace_id, verified=args.verified, paid=args.paid,
                                       terms_accepted=args.terms_accepted)
    return {"workspace_id": str(workspace.id)}


def _register_key(commands):
    key = commands.add_parser("key", help="API keys").add_subparsers(dest="action", required=True)
    create = key.add_parser("create", help="create a key; its secret is printed this once only")
    owner = create.add_mutually_exclusive_group(required=True)
    owner.add_argument("--clinic", type=uuid_arg, metavar="CLINIC_ID")
    owner.add_argument("--workspace", type=uuid_arg, metavar="WORKSPACE_ID")
    create.add_argument("--mode", choices=("live", "test"))
    create.add_argument("--ip-allow", action="append", default=[], metavar="CIDR")
    create.add_argument("--expires-at", type=datetime_arg, metavar="ISO")
    create.add_argument("--scopes", type=scopes_arg, help="narrow the key, e.g. allergies:read,conditions:read")
    create.add_argument("--rate-limit", type=positive_int_arg, metavar="N", help="requests per minute")
    create.set_defaults(handler=key_create)

    revoke = key.add_parser("revoke", help="revoke a key; it stops working on the next call")
    revoke.add_argument("key_id", metavar="KEY_ID")
    revoke.set_defaults(handler=key_revoke)


def key_create(request, args):
    if args.clinic and args.mode == "test":
        raise services.AccessError("a clinic-owned key is always live; --mode test is for workspace keys")
    if args.workspace and args.mode is None:
        raise services.AccessError("--workspace needs --mode live or --mode test")
    if args.workspace and args.mode == "live":
        services.get_workspace(request.db, args.workspace)
        missing = request.find_service(ILiveKeyGate).missing(args.workspace)
        if missing:
            raise services.AccessError("a live key needs " + ", ".join(
                f"{condition.need} ({condition.code})" for condition in missing))
    key, full_key = services.create_key(
        request.db, _pepper(request), clinic_id=args.clinic, workspace_id=args.workspace, mode=args.mode,
        scopes=args.scopes, ip_allow=args.ip_allow, expires_at=args.expires_at, rate_limit=args.rate_limit,
    )
    return {"key": full_key, "key_id": key.key_id}


def key_revoke(request, args):
    key = services.revoke_key(request.db, args.key_id)
    return {"key_id": key.key_id, "revoked": True}


def _register_connection(commands):
    connection = commands.add_parser("connection", help="clinics' connections to workspaces").add_subparsers(
        dest="action", required=True)
    grant = connection.add_parser("grant", help="connect, or replace the scopes of an existing connection")
    grant.add_argument("--workspace", type=uuid_arg, required=True, metavar="WORKSPACE_ID")
    grant.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    grant.add_argument("--scopes", type=scopes_arg, required=True)
    grant.add_argument("--expires-at", type=datetime_arg, metavar="ISO")
    grant.set_defaults(handler=connection_grant)

    revoke = connection.add_parser("revoke", help="revoke a connection; effective on the next call")
    revoke.add_argument("--workspace", type=uuid_arg, required=True, metavar="WORKSPACE_ID")
    revoke.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    revoke.set_defaults(handler=connection_revoke)


def connection_grant(request, args):
    connection = services.grant_connection(request.db, args.workspace, args.clinic, args.scopes,
                                           expires_at=args.expires_at)
    return {"connection_id": str(connection.id)}


def connection_revoke(request, args):
    services.revoke_connection(request.db, args.workspace, args.clinic)
    return {"revoked": True}


def month_arg(text):
    try:
        return datetime.datetime.strptime(text, "%Y-%m").date()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a month as YYYY-MM: {text!r}") from None


def _register_usage(commands):
    usage = commands.add_parser("usage", help="requests counted per workspace").add_subparsers(
        dest="action", required=True)
    show = usage.add_parser("show", help="a workspace's requests in a calendar month (UTC)")
    show.add_argument("--workspace", type=uuid_arg, required=True, metavar="WORKSPACE_ID")
    show.add_argument("--month", type=month_arg, metavar="YYYY-MM", help="default: the current month")
    show.set_defaults(handler=usage_show)


def usage_show(request, args):
    month = args.month or datetime.datetime.now(datetime.UTC).date().replace(day=1)
    counts = services.workspace_usage(request.db, request.registry["access.rate_limiter"], args.workspace, month)
    return {"workspace_id": str(args.workspace), "month": f"{month:%Y-%m}",
            "requests": counts["live"] + counts["test"], "live": counts["live"], "test": counts["test"],
            "connected_clinics": services.connected_clinics(request.db, args.workspace, month)}
