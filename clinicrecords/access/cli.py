import argparse
import datetime
import re

from clinicrecords.access import services
from clinicrecords.access.interfaces import ILiveKeyGate, ISandboxSeed
from clinicrecords.access.keys import parse_key
from clinicrecords.access.operator_json import connection_json, key_json, revocation_json, workspace_json
from clinicrecords.access.permissions import ALL_PERMISSIONS, parse_scopes
from clinicrecords.access.usage import IUsageService
from clinicrecords.api.render import iso
from clinicrecords.cli import command_group
from clinicrecords.cli.arguments import datetime_arg, positive_int_arg, uuid_arg
from clinicrecords.clock import now as clock_now
from clinicrecords.identity.services import ITermsService, current_terms_version
from clinicrecords.publishing import request_publisher
from clinicrecords.settings import app_settings

SCOPES_HELP = ", ".join(sorted(ALL_PERMISSIONS))


def scopes_arg(text):
    """argparse type (here, not in clinicrecords.cli: the platform's CLI imports no context)."""
    try:
        return parse_scopes(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _pepper(request):
    return app_settings(request.registry).secrets.key_pepper


def register(commands):
    _register_workspace(commands)
    _register_key(commands)
    _register_connection(commands)
    _register_usage(commands)


def _register_workspace(commands):
    workspace = command_group(commands, "workspace", "organizations' workspaces")
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

    workspace.add_parser("list", help="every workspace, oldest first").set_defaults(handler=workspace_list)

    terms = workspace.add_parser("terms", help="the API Terms' acceptances").add_subparsers(
        dest="terms_action", required=True)
    record = terms.add_parser("record", help="record an acceptance made outside the portal (a signed agreement)")
    record.add_argument("--workspace", required=True, type=uuid_arg, metavar="WORKSPACE_ID")
    record.add_argument("--version", required=True, help="the version accepted, e.g. 2026-01")
    record.add_argument("--accepted-by", required=True, metavar="NAME", help="who accepted, as signed")
    record.add_argument("--reference", required=True, metavar="TEXT", help="where the agreement is kept")
    record.set_defaults(handler=workspace_terms_record)


def workspace_create(request, args):
    workspace = services.create_workspace(
        request.db, args.name, verified=args.verified, paid=args.paid, terms_accepted=args.terms_accepted,
        terms_version=current_terms_version(app_settings(request.registry)),
        seed=lambda db, clinic: request.registry.getUtility(ISandboxSeed)(request, clinic),
    )
    return {"workspace_id": str(workspace.id), "sandbox_clinic_id": str(workspace.sandbox_clinic_id)}


def workspace_set(request, args):
    workspace = services.set_workspace(request.db, args.workspace_id, verified=args.verified, paid=args.paid,
                                       terms_accepted=args.terms_accepted,
                                       terms_version=current_terms_version(app_settings(request.registry)))
    return {"workspace_id": str(workspace.id)}


def workspace_terms_record(request, args):
    workspace = services.get_workspace(request.db, args.workspace)
    acceptance = request.find_service(ITermsService).record(workspace.id, args.version, args.accepted_by,
                                                            args.reference)
    return {"workspace_id": str(workspace.id), "version": acceptance.version,
            "accepted_by": acceptance.accepted_by_name, "reference": acceptance.reference,
            "accepted_at": iso(acceptance.accepted_at)}


def workspace_list(request, args):
    return {"workspaces": [workspace_json(row.Workspace, row.terms_accepted)
                           for row in services.list_workspaces(request.db)]}


def _owner_filter(parser, what):
    owner = parser.add_mutually_exclusive_group()
    owner.add_argument("--workspace", type=uuid_arg, metavar="WORKSPACE_ID",
                       help=f"only this workspace's {what}")
    owner.add_argument("--clinic", type=uuid_arg, metavar="CLINIC_ID", help=f"only this clinic's {what}")


def key_id_arg(text):
    """A key id, or a whole key pasted by mistake: never echoed, since it may carry a secret."""
    parsed = parse_key(text)
    if parsed is not None:
        return parsed.key_id
    if re.fullmatch(r"[0-9a-f]{16}", text):
        return text
    raise argparse.ArgumentTypeError(
        "not a key id (16 hex characters, as printed by `key create`) or a whole key")


def _register_key(commands):
    key = commands.add_parser("key", help="API keys").add_subparsers(dest="action", required=True)
    create = key.add_parser("create", help="create a key; its secret is printed this once only")
    owner = create.add_mutually_exclusive_group(required=True)
    owner.add_argument("--clinic", type=uuid_arg, metavar="CLINIC_ID")
    owner.add_argument("--workspace", type=uuid_arg, metavar="WORKSPACE_ID")
    create.add_argument("--mode", choices=("live", "test"))
    create.add_argument("--name", help="what the key is for (up to 100 characters; not unique); shown where keys "
                                       "are listed")
    create.add_argument("--ip-allow", action="append", default=[], metavar="CIDR")
    create.add_argument("--expires-at", type=datetime_arg, metavar="ISO")
    create.add_argument("--scopes", type=scopes_arg, help=f"narrow the key to some of: {SCOPES_HELP}")
    create.add_argument("--rate-limit", type=positive_int_arg, metavar="N", help="requests per minute")
    create.set_defaults(handler=key_create)

    revoke = key.add_parser("revoke", help="revoke a key; it stops working on the next call")
    revoke.add_argument("key_id", type=key_id_arg, metavar="KEY_ID", help="the key id (a whole key works too)")
    revoke.set_defaults(handler=key_revoke)

    listing = key.add_parser("list", help="keys, oldest first: ids and settings, never secrets")
    _owner_filter(listing, "keys")
    listing.set_defaults(handler=key_list)


def key_create(request, args):
    if args.clinic and args.mode == "test":
        raise services.AccessError("a clinic-owned key is always live; --mode test is for workspace keys")
    if args.workspace and args.mode is None:
        raise services.AccessError("--workspace needs --mode live or --mode test")
    if args.workspace and args.mode == "live":
        services.get_workspace(request.db, args.workspace)
        missing = request.find_service(ILiveKeyGate).missing(args.workspace)
        if missing:
            raise services.LiveKeyRefused(missing)
    key, full_key = services.create_key(
        request.db, _pepper(request), clinic_id=args.clinic, workspace_id=args.workspace, mode=args.mode,
        scopes=args.scopes, ip_allow=args.ip_allow, expires_at=args.expires_at, rate_limit=args.rate_limit,
        name=args.name,
    )
    return {"key": full_key, "key_id": key.key_id}


def key_revoke(request, args):
    revocation = services.revoke_key(request.db, args.key_id)
    return {"key_id": revocation.record.key_id, **revocation_json(revocation)}


def key_list(request, args):
    keys = services.list_keys(request.db, workspace_id=args.workspace, clinic_id=args.clinic)
    return {"keys": [key_json(key) for key in keys]}


def _register_connection(commands):
    connection = commands.add_parser("connection", help="clinics' connections to workspaces").add_subparsers(
        dest="action", required=True)
    grant = connection.add_parser("grant", help="connect, or replace the scopes of an existing connection")
    grant.add_argument("--workspace", type=uuid_arg, required=True, metavar="WORKSPACE_ID")
    grant.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    grant.add_argument("--scopes", type=scopes_arg, required=True,
                       help=f"comma-separated, from: {SCOPES_HELP}")
    grant.add_argument("--expires-at", type=datetime_arg, metavar="ISO")
    grant.set_defaults(handler=connection_grant)

    revoke = connection.add_parser("revoke", help="revoke a connection; effective on the next call")
    revoke.add_argument("--workspace", type=uuid_arg, required=True, metavar="WORKSPACE_ID")
    revoke.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    revoke.set_defaults(handler=connection_revoke)

    listing = connection.add_parser("list", help="connections, oldest first, revoked ones included")
    _owner_filter(listing, "connections")
    listing.set_defaults(handler=connection_list)


def connection_grant(request, args):
    connection = services.grant_connection(request.db, args.workspace, args.clinic, args.scopes,
                                           expires_at=args.expires_at, publish=request_publisher(request))
    return {"connection_id": str(connection.id)}


def connection_revoke(request, args):
    revocation = services.revoke_connection(request.db, args.workspace, args.clinic,
                                            publish=request_publisher(request))
    connection = revocation.record
    return {"connection_id": str(connection.id), "workspace_id": str(connection.workspace_id),
            "clinic_id": str(connection.clinic_id), **revocation_json(revocation)}


def connection_list(request, args):
    connections = services.list_connections(request.db, workspace_id=args.workspace, clinic_id=args.clinic)
    return {"connections": [connection_json(connection) for connection in connections]}


def month_arg(text):
    try:
        return datetime.datetime.strptime(text, "%Y-%m").date()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a month as YYYY-MM: {text!r}") from None


def _register_usage(commands):
    usage = commands.add_parser("usage", help="monthly usage per workspace: the billing basis").add_subparsers(
        dest="action", required=True)
    show = usage.add_parser("show", help="a workspace's month (UTC): requests, connected clinics, allowance, "
                                         "overage")
    show.add_argument("--workspace", type=uuid_arg, required=True, metavar="WORKSPACE_ID")
    show.add_argument("--month", type=month_arg, metavar="YYYY-MM", help="default: the current month")
    show.set_defaults(handler=usage_show)

    export = usage.add_parser("export", help="one entry per workspace to invoice for a month (UTC)")
    export.add_argument("--month", type=month_arg, required=True, metavar="YYYY-MM")
    export.set_defaults(handler=usage_export)


def _month_usage_json(usage):
    return {
        "workspace_id": str(usage.workspace_id), "month": f"{usage.month:%Y-%m}", "plan": usage.plan,
        "billable": usage.billable, "requests": usage.live_requests + usage.test_requests,
        "live": usage.live_requests, "test": usage.test_requests, "connected_clinics": usage.connected_clinics,
        "included": {"requests": usage.included_requests, "connected_clinics": usage.included_clinics},
        "overage": {"requests": usage.overage_requests, "connected_clinics": usage.overage_clinics},
    }


def usage_show(request, args):
    month = args.month or clock_now().date()
    return _month_usage_json(request.find_service(IUsageService).month_usage(args.workspace, month))


def usage_export(request, args):
    usages = request.find_service(IUsageService).month_export(args.month)
    return {"month": f"{args.month:%Y-%m}", "workspaces": [_month_usage_json(usage) for usage in usages]}
