"""Patients of the clinic the request is bound to. Restricted patients are invisible to API keys."""

import uuid

from sqlalchemy import Uuid, bindparam, or_, select
from zope.interface import implementer

from clinicrecords.db import security_events
from clinicrecords.access.services import shown_to_keys
from clinicrecords.api.pagination import keyset_page
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.db.prebuilt import Prebuilt
from clinicrecords.patients.models import Patient
from clinicrecords.patients.interfaces import IPatientService


# The permission map's rule (a restricted patient and everything recorded about them are hidden from API keys),
# on this context's table: the hook every read of a patient's records goes through.
_SHOWN_TO_KEYS = shown_to_keys(Patient.restricted)


def visible(statement, patient_id_column):
    """`statement` limited to rows whose patient the API may see (the permission map's `shown_to_keys`). The
    one place other contexts get this rule from."""
    return statement.join(Patient, Patient.id == patient_id_column).where(_SHOWN_TO_KEYS)


def visible_patients():
    """The patients the API may see."""
    return select(Patient).where(_SHOWN_TO_KEYS)


def patient_rows_for_export(since=None):
    """The rows of the patients a bulk export writes (those the API may see), oldest first; with `since`, those
    changed at or after it."""
    statement = select(*Patient.__table__.columns).where(_SHOWN_TO_KEYS)
    if since is not None:
        statement = statement.where(Patient.updated_at >= since)
    return statement.order_by(Patient.created_at, Patient.id)


def visible_for_export(statement, patient_id_column, updated_at_column, since=None):
    """`statement` (a select of another context's rows about patients) as a bulk export reads it: `visible`,
    oldest first by the caller's order; with `since`, the rows changed at or after it *or whose patient did*: a
    patient shown to keys again (no longer restricted) brings their records back though those did not change."""
    statement = visible(statement, patient_id_column)
    if since is not None:
        statement = statement.where(or_(updated_at_column >= since, Patient.updated_at >= since))
    return statement


def hidden_patient_ids(db):
    """The ids of the clinic's patients hidden from API keys now (restricted): a bulk export's download leaves
    out the lines about them, though the file was written before."""
    return {str(patient_id) for patient_id in db.scalars(select(Patient.id).where(~_SHOWN_TO_KEYS))}


# Built once: every send runs it (building it showed in POST's profile).
_VISIBLE_PATIENT = Prebuilt(select(Patient.id).where(Patient.id == bindparam("patient_id", type_=Uuid()),
                                                         _SHOWN_TO_KEYS))


def is_visible_patient(db, patient_id):
    """Whether the clinic has this patient and the API may see them (what a send naming a patient checks)."""
    return _VISIBLE_PATIENT.first(db, patient_id=patient_id) is not None


def patient_exists(db, patient_id):
    """Whether the clinic has this patient, restricted or not (what clinic staff may name)."""
    return db.get(Patient, patient_id) is not None


def set_restricted(db, patient_id, restricted):
    """Hide (or show again) a patient and all their records from every API key; None when there is no such
    patient in the clinic."""
    patient = db.get(Patient, patient_id)
    if patient is not None:
        if restricted and not patient.restricted:
            security_events.record(db, security_events.PATIENT_RESTRICTED,
                                   clinic_id=security_events.bound_clinic_id(db), patient_id=str(patient_id))
        patient.restricted = restricted
        db.flush()
    return patient


@implementer(IPatientService)
class PatientService:
    def __init__(self, db):
        self.db = db

    def get(self, patient_id):
        """The patient, or None when absent or restricted (one answer for both)."""
        return self.db.scalar(visible_patients().where(Patient.id == patient_id))

    def list(self, query, cursors):
        statement = visible_patients()
        if query.get("updated_since"):
            statement = statement.where(Patient.updated_at >= query["updated_since"])
        if query.get("family_name"):
            statement = statement.where(Patient.family_name.ilike(query["family_name"]))
        return keyset_page(cursors, self.db, statement, (Patient.created_at, Patient.id), query)

    def create(self, data, patient_id=None):
        patient = Patient(id=patient_id or uuid.uuid4(), **data)
        self.db.add(patient)
        self.db.flush()
        return patient

    def update(self, patient, data):
        for name, value in data.items():
            setattr(patient, name, value)
        self.db.flush()
        return patient


def patient_service_factory(context, request):
    return PatientService(clinic_scope(context).db)


# For other contexts' staff commands and the clinic console (the portal): clinic staff see every patient
# of their clinic, restricted ones too.

def find_patient(db, patient_id):
    """The patient, restricted or not, or None: for existence checks and staff commands of other contexts,
    which must not tell a restricted patient from an absent one to an API caller themselves."""
    return db.get(Patient, patient_id)


def patients_by_id(db, patient_ids):
    """{id: patient} of those of `patient_ids` that exist."""
    ids = set(patient_ids)
    return {patient.id: patient for patient in db.scalars(select(Patient).where(Patient.id.in_(ids)))} if ids else {}


def _named(words):
    """Each word in the given or the family name."""
    return [Patient.given_name.ilike(f"%{w}%") | Patient.family_name.ilike(f"%{w}%") for w in words]


def patients_named(db, words, limit=20):
    """The patients whose given or family name contains each of `words`, by family then given name."""
    return db.scalars(select(Patient).where(*_named(words)).order_by(Patient.family_name, Patient.given_name)
                      .limit(limit)).all()


def patient_ids_matching(text):
    """A select of the ids of the patients `text` names: a patient id, or up to four words of the name."""
    try:
        return select(Patient.id).where(Patient.id == uuid.UUID(text.strip()))
    except ValueError:
        words = text.split()[:4]
        return select(Patient.id).where(*_named(words)) if words else select(Patient.id).where(Patient.id.is_(None))
