"""Dispensings and their refill/duplicate checks.

A check compares a dispensing only with the same patient's earlier dispensings of the same medicine (same
GTIN, else same generic name): nothing about another customer ever enters a flag.
- duplicate_dispensing: the same medicine was dispensed to the patient less than 24 hours before;
- early_refill: otherwise, less than 80% of the previous dispensing's days of supply have passed.
check_state is clear (no flag), flagged (a flag, no pharmacist's reason) or overridden (a flag and the
pharmacist dispensed with a reason).
"""

import datetime
import re
import uuid

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access.services import get_workspace
from clinicrecords.api.pagination import Page, keyset_page, list_cursors
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.clock import now
from clinicrecords.dispensing.interfaces import IDispensingFlags
from clinicrecords.dispensing.models import Dispensing, DispensingEnrollment
from clinicrecords.dispensing.schemas import REASON_CODES
from clinicrecords.errors import InvalidInput
from clinicrecords.patients.services import find_patient, visible

EARLY_REFILL_SHARE = 0.8
_GTIN = re.compile(r"^(\d{8}|\d{12}|\d{13}|\d{14})$")


class DispensingError(InvalidInput):
    """Bad input for a dispensing staff command; nothing was written."""


@implementer(IDispensingFlags)
class DispensingFlagService:
    def __init__(self, db, workspace_id, cursors):
        self.db = db
        self.workspace_id = workspace_id
        self.cursors = cursors

    def list(self, query):
        """Flags of the caller's enrolled, unrestricted patients dispensed within the query's window.

        A clinic-owned key (no workspace) has no enrollees: its list is always empty."""
        workspace_id = self.workspace_id
        if workspace_id is None:
            return Page([], False, None)
        start = datetime.datetime.combine(query["from_"], datetime.time(), datetime.UTC)
        end = datetime.datetime.combine(query["to"] + datetime.timedelta(days=1), datetime.time(), datetime.UTC)
        statement = visible(
            select(Dispensing).join(DispensingEnrollment, (DispensingEnrollment.patient_id == Dispensing.patient_id)
                                    & (DispensingEnrollment.workspace_id == workspace_id)),
            Dispensing.patient_id,
        ).where(Dispensing.dispensed_at >= start, Dispensing.dispensed_at < end)
        if query.get("patient_id"):
            statement = statement.where(Dispensing.patient_id == query["patient_id"])
        return keyset_page(self.cursors, self.db, statement, (Dispensing.dispensed_at, Dispensing.id), query)


def dispensing_flag_service_factory(context, request):
    scope = clinic_scope(context)
    return DispensingFlagService(scope.db, scope.identity.workspace_id, list_cursors(request))


def _same_medicine(earlier, identifiers, generic_name):
    mine = {(i["system"], i["value"]) for i in identifiers}
    theirs = {(i["system"], i["value"]) for i in earlier.identifiers}
    if mine and theirs:
        return bool(mine & theirs)
    return bool(generic_name and earlier.generic_name
                and generic_name.strip().casefold() == earlier.generic_name.strip().casefold())


def check(db, patient_id, identifiers, generic_name, dispensed_at):
    """(flags, evidence) for a dispensing, from the patient's own previous dispensing of the same medicine."""
    earlier = db.scalars(select(Dispensing).where(Dispensing.patient_id == patient_id,
                                                  Dispensing.dispensed_at < dispensed_at)
                         .order_by(Dispensing.dispensed_at.desc())).all()
    previous = next((d for d in earlier if _same_medicine(d, identifiers, generic_name)), None)
    if previous is None:
        return [], {}
    elapsed = dispensed_at - previous.dispensed_at
    if elapsed < datetime.timedelta(days=1):
        flags = ["duplicate_dispensing"]
    elif elapsed < datetime.timedelta(days=previous.days_supply * EARLY_REFILL_SHARE):
        flags = ["early_refill"]
    else:
        return [], {}
    return flags, {
        "previous_dispensed_at": previous.dispensed_at.isoformat(),
        "previous_days_supply": previous.days_supply,
        "days_since_previous": elapsed.days,
        "supply_days_remaining": max(0, previous.days_supply - elapsed.days),
    }


def _text(value, name, length, required=False):
    if value is None:
        if required:
            raise DispensingError(f"{name} is required")
        return None
    value = value.strip()
    if not value or len(value) > length:
        raise DispensingError(f"{name} must be 1 to {length} characters")
    return value


def record_dispensing(db, patient_id, medicine_name, days_supply, *, generic_name=None, brand_name=None,
                      gtins=(), dispensed_at=None, reason_code=None, reason_text=None, price=None,
                      pharmacist_id=None, pharmacist_name=None, dispensing_id=None):
    if find_patient(db, patient_id) is None:
        raise DispensingError(f"no patient {patient_id} in this clinic")
    medicine_name = _text(medicine_name, "--medicine-name", 200, required=True)
    generic_name = _text(generic_name, "--generic-name", 200)
    brand_name = _text(brand_name, "--brand-name", 200)
    for gtin in gtins:
        if not _GTIN.match(gtin):
            raise DispensingError(f"--gtin must be 8, 12, 13 or 14 digits: {gtin!r}")
    if not 1 <= days_supply <= 365:
        raise DispensingError("--days-supply must be 1 to 365")
    if (reason_code is None) != (reason_text is None):
        raise DispensingError("--reason-code and --reason-text go together")
    if reason_code is not None and reason_code not in REASON_CODES:
        raise DispensingError(f"--reason-code must be one of {', '.join(REASON_CODES)}")
    reason_text = _text(reason_text, "--reason-text", 500)
    if price is not None and price < 0:
        raise DispensingError("--price must not be negative")
    dispensed_at = dispensed_at or now()
    identifiers = [{"system": "gtin", "value": gtin} for gtin in gtins]
    flags, evidence = check(db, patient_id, identifiers, generic_name, dispensed_at)
    if reason_code and not flags:
        raise DispensingError("the check raised no flag: a reason is recorded only to override a flag")
    dispensing = Dispensing(
        id=dispensing_id or uuid.uuid4(), patient_id=patient_id, medicine_name=medicine_name,
        generic_name=generic_name, brand_name=brand_name, identifiers=identifiers, days_supply=days_supply,
        dispensed_at=dispensed_at, check_state=("overridden" if reason_code else "flagged") if flags else "clear",
        flags=flags, evidence=evidence, reason_code=reason_code, reason_text=reason_text, price=price,
        pharmacist_id=pharmacist_id, pharmacist_name=_text(pharmacist_name, "--pharmacist-name", 200))
    db.add(dispensing)
    db.flush()
    return dispensing


def enroll(db, workspace_id, patient_id):
    """The workspace's keys see this patient's dispensing flags. Enrolling twice changes nothing."""
    get_workspace(db, workspace_id)
    if find_patient(db, patient_id) is None:
        raise DispensingError(f"no patient {patient_id} in this clinic")
    if db.get(DispensingEnrollment, (workspace_id, patient_id)) is None:
        db.add(DispensingEnrollment(workspace_id=workspace_id, patient_id=patient_id))
        db.flush()


def unenroll(db, workspace_id, patient_id):
    enrollment = db.get(DispensingEnrollment, (workspace_id, patient_id))
    if enrollment is None:
        raise DispensingError("that patient is not enrolled with that workspace")
    db.delete(enrollment)
    db.flush()
