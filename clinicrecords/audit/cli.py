"""`audit list`: operators read a clinic's audit trail."""

from clinicrecords.audit import services
from clinicrecords.cli.arguments import datetime_arg, positive_int_arg, uuid_arg
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput


def register(commands):
    audit = commands.add_parser("audit", help="the audit trail of patient data access").add_subparsers(
        dest="action", required=True)
    listing = audit.add_parser("list", help="a clinic's audit entries, oldest first")
    listing.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    listing.add_argument("--since", type=datetime_arg, metavar="ISO", help="entries at or after this time")
    listing.add_argument("--key", metavar="KEY_ID", help="only this key's requests")
    listing.add_argument("--limit", type=positive_int_arg, default=1000)
    listing.set_defaults(handler=audit_list)


def audit_list(request, args):
    if open_clinic(request.db, args.clinic) is None:
        raise InvalidInput(f"no clinic {args.clinic}")
    entries = services.list_entries(request.db, since=args.since, key_id=args.key, limit=args.limit)
    return {"data": [services.describe(e) for e in entries]}
