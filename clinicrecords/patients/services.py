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


def find_patient(db, patient_id):
    """The patient, restricted or not, or None: for existence checks and staff commands of other contexts,
    which must not tell a restricted patient from an absent one to an API caller themselves."""
    return db.get(Patient, patient_id)
