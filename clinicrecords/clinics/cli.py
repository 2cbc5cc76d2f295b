from clinicrecords.cli.arguments import float_arg
from clinicrecords.clinics.models import CLINIC_KINDS
from clinicrecords.clinics.services import create_clinic


def register(commands):
    clinic = commands.add_parser("clinic", help="clinics (tenants)").add_subparsers(dest="action", required=True)
    create = clinic.add_parser("create", help="create a clinic and its schema")
    create.add_argument("--name", required=True)
    create.add_argument("--kind", choices=CLINIC_KINDS, default="clinic")
    create.add_argument("--currency", default="USD")
    create.add_argument("--lat", type=float_arg)
    create.add_argument("--lng", type=float_arg)
    create.set_defaults(handler=clinic_create)


def clinic_create(request, args):
    clinic = create_clinic(request.db, args.name, kind=args.kind, currency=args.currency, lat=args.lat,
                           lng=args.lng)
    return {"clinic_id": str(clinic.id)}
