"""Patients of the clinic the request is bound to. Restricted patients are invisible to API keys."""

import uuid

from sqlalchemy import select

from clinicrecords.api.pagination import keyset_page
from clinicrecords.patients.models import Patient


def visible(statement, patient_id_column):
    """`statement` limited to rows whose patient the API may see: a restricted patient and everything
    recorded about them are invisible to API keys. The one place other contexts get this rule from."""
    return statement.join(Patient, Patient.id == patient_id_column).where(Patient.restricted.is_(False))


def visible_patients():
    """The patients the API may see."""
    return select(Patient).where(Patient.restricted.is_(False))


class PatientService:
    def __init__(self, request):
        self.request = request
        self.db = request.db

    def get(self, patient_id):
        """The patient, or None when absent or restricted (one answer for both)."""
        return self.db.scalar(visible_patients().where(Patient.id == patient_id))

    def list(self, query):
        statement = visible_patients()
        if query.get("updated_since"):
            statement = statement.where(Patient.updated_at >= query["updated_since"])
        if query.get("family_name"):
            statement = statement.where(Patient.family_name.ilike(query["family_name"]))
        return keyset_page(self.request, self.db, statement, (Patient.created_at, Patient.id), query)

    def create(self, data, patient_id=None):
        patient = Patient(id=patient_id or uuid.uuid4(), **data)
        self.db.add(patient)
        self.db.flush()
        self.db.refresh(patient)
        return patient

    def update(self, patient, data):
        for name, value in data.items():
            setattr(patient, name, value)
        self.db.flush()
        self.db.refresh(patient)
        return patient


def patient_service_factory(context, request):
    return PatientService(request)


# For the clinic console (the portal): clinic staff see every patient of their clinic, restricted ones too.

def find_patient(db, patient_id):
    """The patient of the clinic `db` is bound to, or None."""
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
