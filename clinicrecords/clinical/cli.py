from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.clinical import representations, staff
from clinicrecords.clinical.staff import REFERRAL_TRANSITIONS
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput


def register(commands):
    referral = commands.add_parser("referral", help="referrals into a clinic").add_subparsers(
        dest="action", required=True)
    act = referral.add_parser("act", help="the clinic accepts, declines, books, completes or cancels a referral")
    act.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    act.add_argument("referral_id", type=uuid_arg, metavar="REFERRAL_ID")
    act.add_argument("--status", required=True,
                     choices=sorted({s for targets in REFERRAL_TRANSITIONS.values() for s in targets}))
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


def _open_clinic(request, clinic_id):
    if open_clinic(request.db, clinic_id) is None:
        raise InvalidInput(f"no clinic {clinic_id}")


def referral_act(request, args):
    _open_clinic(request, args.clinic)
    referral = staff.act_on_referral(request.db, args.referral_id, args.status, args.reason)
    request.db.refresh(referral)
    document = representations.referral_json(referral, None)
    document["status_reason"] = referral.status_reason
    return {"referral": document}


def patient_restrict(request, args):
    _open_clinic(request, args.clinic)
    patient = staff.restrict_patient(request.db, args.patient_id, args.restricted)
    return {"patient_id": str(patient.id), "restricted": patient.restricted}
