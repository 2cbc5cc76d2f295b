"""Staff commands: record a dispensing with its check; enroll patients with an organization."""

from decimal import Decimal, InvalidOperation

from clinicrecords.cli.arguments import datetime_arg, positive_int_arg, uuid_arg
from clinicrecords.clinics.services import open_clinic
from clinicrecords.dispensing import services
from clinicrecords.dispensing.schemas import REASON_CODES
from clinicrecords.errors import InvalidInput


def _clinic(request, args):
    clinic = open_clinic(request.db, args.clinic)
    if clinic is None:
        raise InvalidInput(f"no clinic {args.clinic}")
    return clinic


def _price(text):
    if text is None:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise InvalidInput(f"--price: not a number: {text!r}") from None
    if not value.is_finite():
        raise InvalidInput("--price must be a finite number")
    return value


def register(commands):
    dispensing = commands.add_parser("dispensing", help="dispensings and their checks").add_subparsers(
        dest="action", required=True)
    record = dispensing.add_parser("record", help="record a dispensing; its refill/duplicate check is computed")
    record.add_argument("--clinic", type=uuid_arg, required=True)
    record.add_argument("--patient", type=uuid_arg, required=True)
    record.add_argument("--medicine-name", required=True)
    record.add_argument("--generic-name")
    record.add_argument("--brand-name")
    record.add_argument("--gtin", action="append", default=[])
    record.add_argument("--days-supply", type=positive_int_arg, required=True)
    record.add_argument("--dispensed-at", type=datetime_arg)
    record.add_argument("--reason-code", choices=REASON_CODES)
    record.add_argument("--reason-text")
    record.add_argument("--price")
    record.add_argument("--pharmacist-id", type=uuid_arg)
    record.add_argument("--pharmacist-name")
    record.set_defaults(handler=dispensing_record)

    for action, handler, help in (("enroll", dispensing_enroll, "let a workspace's keys see a patient's flags"),
                                  ("unenroll", dispensing_unenroll, "stop showing a patient's flags")):
        parser = dispensing.add_parser(action, help=help)
        parser.add_argument("--clinic", type=uuid_arg, required=True)
        parser.add_argument("--workspace", type=uuid_arg, required=True)
        parser.add_argument("--patient", type=uuid_arg, required=True)
        parser.set_defaults(handler=handler)


def dispensing_record(request, args):
    _clinic(request, args)
    dispensing = services.record_dispensing(
        request.db, args.patient, args.medicine_name, args.days_supply, generic_name=args.generic_name,
        brand_name=args.brand_name, gtins=args.gtin, dispensed_at=args.dispensed_at, reason_code=args.reason_code,
        reason_text=args.reason_text, price=_price(args.price), pharmacist_id=args.pharmacist_id,
        pharmacist_name=args.pharmacist_name)
    return {"dispensing_id": str(dispensing.id), "check_state": dispensing.check_state, "flags": dispensing.flags}


def dispensing_enroll(request, args):
    _clinic(request, args)
    services.enroll(request.db, args.workspace, args.patient)
    return {"workspace_id": str(args.workspace), "patient_id": str(args.patient), "enrolled": True}


def dispensing_unenroll(request, args):
    _clinic(request, args)
    services.unenroll(request.db, args.workspace, args.patient)
    return {"workspace_id": str(args.workspace), "patient_id": str(args.patient), "enrolled": False}
