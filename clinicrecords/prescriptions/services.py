"""Prescriptions of the clinic's patients; those of restricted patients are invisible to API keys."""

import datetime
import uuid

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.api.pagination import keyset_page
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.errors import InvalidInput
from clinicrecords.patients.services import patient_exists, visible, visible_for_export
from clinicrecords.prescriptions.models import Prescription
from clinicrecords.prescriptions.schemas import SOURCES, STATUSES
from clinicrecords.prescriptions.interfaces import IPrescriptionService


@implementer(IPrescriptionService)
class PrescriptionService:
    def __init__(self, db):
        self.db = db

    def _visible(self):
        return visible(select(Prescription), Prescription.patient_id)

    def get(self, prescription_id):
        return self.db.scalar(self._visible().where(Prescription.id == prescription_id))

    def list(self, query, cursors):
        statement = self._visible()
        if query.get("updated_since"):
            statement = statement.where(Prescription.updated_at >= query["updated_since"])
        if query.get("patient_id"):
            statement = statement.where(Prescription.patient_id == query["patient_id"])
        if query.get("status"):
            statement = statement.where(Prescription.status == query["status"])
        return keyset_page(cursors, self.db, statement, (Prescription.created_at, Prescription.id), query)

    def add(self, patient_id, drug, dose, frequency, status="active", source="clinic", written_on=None,
            start_date=None, end_date=None, prescription_id=None):
        """Staff record a prescription (the clinic's prescribing system is the usual writer)."""
        if not patient_exists(self.db, patient_id):
            raise InvalidInput(f"no patient {patient_id} in this clinic")
        for label, value, limit in (("drug", drug, 200), ("dose", dose, 100), ("frequency", frequency, 100)):
            if not value or not value.strip() or len(value) > limit:
                raise InvalidInput(f"the {label} must be 1 to {limit} characters")
        if status not in STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(STATUSES)}")
        if source not in SOURCES:
            raise InvalidInput(f"source must be one of {', '.join(SOURCES)}")
        if start_date and end_date and end_date < start_date:
            raise InvalidInput("the end date is before the start date")
        prescription = Prescription(id=prescription_id or uuid.uuid4(), patient_id=patient_id, drug=drug.strip(),
                                    dose=dose.strip(), frequency=frequency.strip(), status=status, source=source,
                                    written_on=written_on or datetime.date.today(), start_date=start_date,
                                    end_date=end_date)
        self.db.add(prescription)
        self.db.flush()
        return prescription


def prescription_service_factory(context, request):
    return PrescriptionService(clinic_scope(context).db)


def prescription_rows_for_export(since=None):
    """The rows of the prescriptions a bulk export writes (those of patients the API may see), oldest first."""
    return visible_for_export(select(*Prescription.__table__.columns), Prescription.patient_id,
                              Prescription.updated_at, since).order_by(Prescription.created_at, Prescription.id)
