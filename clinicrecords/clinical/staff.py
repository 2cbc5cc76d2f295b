"""What clinic staff do to the chart directly (operator CLI; the clinic's own screens call the same)."""

from clinicrecords.clinical.models import Referral
from clinicrecords.clock import now
from clinicrecords.errors import InvalidInput
from clinicrecords.patients.services import set_restricted

# The clinic alone moves a referral. Sender take-back (entered_in_error) goes through review instead.
REFERRAL_TRANSITIONS = {
    "received": ("accepted", "declined", "scheduled", "cancelled"),
    "accepted": ("scheduled", "completed", "cancelled"),
    "scheduled": ("completed", "cancelled"),
    "completed": (),
    "declined": (),
    "cancelled": (),
    "entered_in_error": (),
}
REASONED = ("declined", "cancelled")


class StaffError(InvalidInput):
    """A staff action that cannot be done; nothing was written."""


def act_on_referral(db, referral_id, status, reason=None):
    referral = db.get(Referral, referral_id)
    if referral is None:
        raise StaffError(f"no referral {referral_id} in this clinic")
    allowed = REFERRAL_TRANSITIONS[referral.status]
    if status not in allowed:
        raise StaffError(f"a {referral.status} referral cannot become {status}"
                         + (f" (it can become {', '.join(allowed)})" if allowed else " (it is final)"))
    if reason is not None:
        if status not in REASONED:
            raise StaffError("--reason is given only when declining or cancelling")
        if not 1 <= len(reason.strip()) <= 2000:
            raise StaffError("--reason must be 1 to 2000 characters")
    referral.status = status
    referral.status_reason = reason.strip() if reason else None
    referral.acted_at = now()
    db.flush()
    return referral


def restrict_patient(db, patient_id, restricted):
    patient = set_restricted(db, patient_id, restricted)
    if patient is None:
        raise StaffError(f"no patient {patient_id} in this clinic")
    return patient
