from clinicrecords.care_providers.schemas import TYPES
from clinicrecords.care_providers.services import CareProviderService
from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput


def register(commands):
    care_provider = commands.add_parser("care-provider", help="patients' outside care providers").add_subparsers(
        dest="action", required=True)
    add = care_provider.add_parser("add", help="record a contact for the clinic (source clinic)")
    add.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    add.add_argument("--patient", type=uuid_arg, required=True, metavar="PATIENT_ID")
    add.add_argument("--type", required=True, choices=TYPES)
    add.add_argument("--name", required=True)
    add.add_argument("--primary", action="store_true")
    for option in ("--practice-name", "--specialty", "--npi", "--phone", "--fax", "--address"):
        add.add_argument(option)
    add.add_argument("--notes", help="the clinic's own notes; never shown through the API")
    add.set_defaults(handler=care_provider_add)


def care_provider_add(request, args):
    if open_clinic(request.db, args.clinic) is None:
        raise InvalidInput(f"no clinic {args.clinic}")
    contact = CareProviderService(request.db).record_for_clinic(
        args.patient, args.type, args.name, is_primary=args.primary, notes=args.notes,
        practice_name=args.practice_name, specialty=args.specialty, npi=args.npi, phone=args.phone, fax=args.fax,
        address=args.address)
    return {"care_provider_id": str(contact.id)}
