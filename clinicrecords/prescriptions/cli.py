import argparse
import datetime

from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput
from clinicrecords.prescriptions.schemas import SOURCES, STATUSES
from clinicrecords.prescriptions.services import PrescriptionService


def date_arg(text):
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date: {text!r}") from None


def register(commands):
    prescription = commands.add_parser("prescription", help="prescriptions (read-only through the API)"
                                       ).add_subparsers(dest="action", required=True)
    add = prescription.add_parser("add", help="record a prescription the clinic wrote")
    add.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    add.add_argument("--patient", type=uuid_arg, required=True, metavar="PATIENT_ID")
    add.add_argument("--drug", required=True)
    add.add_argument("--dose", required=True)
    add.add_argument("--frequency", required=True)
    add.add_argument("--status", choices=STATUSES, default="active")
    add.add_argument("--source", choices=SOURCES, default="clinic")
    add.add_argument("--written-on", type=date_arg, metavar="DATE")
    add.add_argument("--start", type=date_arg, metavar="DATE")
    add.add_argument("--end", type=date_arg, metavar="DATE")
    add.set_defaults(handler=prescription_add)


def prescription_add(request, args):
    if open_clinic(request.db, args.clinic) is None:
        raise InvalidInput(f"no clinic {args.clinic}")
    prescription = PrescriptionService(request.db).add(
        args.patient, args.drug, args.dose, args.frequency, status=args.status, source=args.source,
        written_on=args.written_on, start_date=args.start, end_date=args.end)
    return {"prescription_id": str(prescription.id)}
