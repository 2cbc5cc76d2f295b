"""`requests list`: operators read a workspace's (or a clinic-owned key's) request log."""

import argparse

from clinicrecords.access.services import get_clinic, get_workspace
from clinicrecords.cli.arguments import positive_int_arg, uuid_arg
from clinicrecords.request_log.interfaces import IRequestLog
from clinicrecords.request_log.services import MAX_LIMIT, describe


def register(commands):
    requests = commands.add_parser("requests", help="the API requests of the last 7 days").add_subparsers(
        dest="action", required=True)
    listing = requests.add_parser("list", help="an owner's requests, newest first")
    owner = listing.add_mutually_exclusive_group(required=True)
    owner.add_argument("--workspace", type=uuid_arg, metavar="WORKSPACE_ID")
    owner.add_argument("--clinic", type=uuid_arg, metavar="CLINIC_ID", help="the clinic's own keys' requests")
    listing.add_argument("--key", metavar="KEY_ID", help="only this key's requests (its key id)")
    listing.add_argument("--status", type=status_arg, metavar="N", help="only answers with this HTTP status")
    listing.add_argument("--request-id", metavar="RID", help="the X-Request-Id of one request")
    listing.add_argument("--before", metavar="CURSOR", help="the next_before of the previous page")
    listing.add_argument("--limit", type=positive_int_arg, default=50, help=f"1 to {MAX_LIMIT} (default 50)")
    listing.set_defaults(handler=requests_list)


def status_arg(text):
    if not (text.isdigit() and 100 <= int(text) <= 599):
        raise argparse.ArgumentTypeError(f"not an HTTP status: {text!r}")
    return int(text)


def requests_list(request, args):
    owner_id = get_workspace(request.db, args.workspace).id if args.workspace else get_clinic(
        request.db, args.clinic).id
    page = request.find_service(IRequestLog).search(owner_id, key_id=args.key, status=args.status,
                                                    request_id=args.request_id, before=args.before,
                                                    limit=args.limit)
    return {"data": [describe(row) for row in page.rows], "next_before": page.next_before}
