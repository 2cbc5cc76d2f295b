from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput
from clinicrecords.providers.schemas import ROLES
from clinicrecords.providers.services import ProviderService


def register(commands):
    provider = commands.add_parser("provider", help="the clinic's clinicians").add_subparsers(
        dest="action", required=True)
    add = provider.add_parser("add", help="record one of the clinic's clinicians")
    add.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    add.add_argument("--given-name", required=True)
    add.add_argument("--family-name", required=True)
    add.add_argument("--role", required=True, choices=ROLES)
    add.add_argument("--specialty", action="append", default=[], dest="specialties")
    add.add_argument("--npi")
    add.add_argument("--licence", action="append", default=[], dest="licences",
                     metavar="JURISDICTION:NUMBER[:EXPIRES_ON]")
    add.set_defaults(handler=provider_add)


def provider_add(request, args):
    if open_clinic(request.db, args.clinic) is None:
        raise InvalidInput(f"no clinic {args.clinic}")
    provider = ProviderService(request.db).add(args.given_name, args.family_name, args.role, args.specialties,
                                            args.npi, args.licences)
    return {"provider_id": str(provider.id)}
