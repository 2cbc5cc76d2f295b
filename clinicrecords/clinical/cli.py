from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.clinical import staff
from clinicrecords.clinical.services import REFERRAL_STATUSES, act_on_referral_as_staff
from clinicrecords.clinics.services import open_clinic_or_fail


def register(commands):
    referral = commands.add_parser("referral", help="referrals into a clinic").add_subparsers(
        dest="action", required=True)
    act = referral.add_parser("act", help="the clinic accepts, declines, books, completes or cancels a referral")
    act.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    act.add_argument("referral_id", type=uuid_arg, metavar="REFERRAL_ID")
    act.add_argument("--status", required=True,
                     choices=REFERRAL_STATUSES)
    act.add_argument("--reason", help="why it was declined or cancelled (shown only to the sender)")
    act.set_defaults(handler=referral_act)

    patient = commands.add_parser("patient", help="patients of a clinic").add_subparsers(dest="action", required=True)
    restrict = patient.add_parser("restrict", help="hide a patient and all their records from every API key")
    restrict.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    restrict.add_argument("patient_id", type=uuid_arg, metavar="PATIENT_ID")
    switch = restrict.add_mutually_exclusive_group(required=True)
    switch.add_argument("--on", dest="restricted", action="store_const", const=True)
    switch.add_argument("--off", dest="restricted", action="store_const", const=False)
    restrict.set_defaults(handler=patient_restrict)


def referral_act(request, args):
    open_clinic_or_fail(request.db, args.clinic)
    return act_on_referral_as_staff(request.db, args.referral_id, args.status, args.reason)


def patient_restrict(request, args):
    open_clinic_or_fail(request.db, args.clinic)
    patient = staff.restrict_patient(request.db, args.patient_id, args.restricted)
    return {"patient_id": str(patient.id), "restricted": patient.restricted}
