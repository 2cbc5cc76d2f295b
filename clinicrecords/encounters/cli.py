"""Staff actions on encounters, for clinics whose charting system reports them and for tests."""

from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.clinics.services import open_clinic
from clinicrecords.encounters.services import EncounterStaff, staff_result
from clinicrecords.errors import InvalidInput


def register(commands):
    encounter = commands.add_parser("encounter", help="staff actions on encounters").add_subparsers(
        dest="action", required=True)
    for action, handler, text in (("touch", encounter_touch, "a clinician edited the note or its visit details"),
                                  ("sign", encounter_sign, "a clinician signed the note (it becomes completed)"),
                                  ("mark-sensitive", encounter_mark_sensitive,
                                   "the clinic marked the note sensitive (hidden from every key)")):
        parser = encounter.add_parser(action, help=text)
        parser.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
        parser.add_argument("encounter_id", type=uuid_arg, metavar="ENCOUNTER_ID")
        parser.set_defaults(handler=handler)


def _service(request, args):
    if open_clinic(request.db, args.clinic) is None:
        raise InvalidInput(f"no clinic {args.clinic}")
    return EncounterStaff(request.db)


def encounter_touch(request, args):
    return staff_result(_service(request, args).touch(args.encounter_id))


def encounter_sign(request, args):
    return staff_result(_service(request, args).sign(args.encounter_id))


def encounter_mark_sensitive(request, args):
    return staff_result(_service(request, args).mark_sensitive(args.encounter_id))
