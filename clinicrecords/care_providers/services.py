"""Outside care providers. Apps add and manage their own contacts; the clinic's stay the clinic's."""

import uuid

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.api.pagination import keyset_page
from clinicrecords.api.problems import Problem, invalid
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.care_providers.models import CareProvider, CareProviderDeletion
from clinicrecords.care_providers.representations import is_editable_by
from clinicrecords.care_providers.schemas import TYPES
from clinicrecords.errors import InvalidInput
from clinicrecords.patients.services import is_visible_patient, patient_exists, visible, visible_for_export
from clinicrecords.providers.services import is_valid_npi
from clinicrecords.care_providers.interfaces import ICareProviderService


@implementer(ICareProviderService)
class CareProviderService:
    def __init__(self, db):
        self.db = db

    def _visible(self):
        return visible(select(CareProvider), CareProvider.patient_id)

    def get(self, contact_id):
        """The contact, or None when absent or its patient restricted (one 404 for both)."""
        return self.db.scalar(self._visible().where(CareProvider.id == contact_id))

    def list(self, query, cursors):
        statement = self._visible()
        if query.get("updated_since"):
            statement = statement.where(CareProvider.updated_at >= query["updated_since"])
        if query.get("patient_id"):
            statement = statement.where(CareProvider.patient_id == query["patient_id"])
        if query.get("type"):
            statement = statement.where(CareProvider.type == query["type"])
        return keyset_page(cursors, self.db, statement, (CareProvider.created_at, CareProvider.id), query)

    def add(self, data, owner_id):
        """Saved at once (no review): a contact is not a clinical record."""
        if not is_visible_patient(self.db, data["patient_id"]):
            raise invalid([{"pointer": "/patient_id", "message": "No patient with this id in this clinic."}])
        contact = CareProvider(id=uuid.uuid4(), source="api", added_by_owner_id=owner_id, **data)
        return self._save(contact)

    def update(self, contact, data, owner_id):
        self._require_own(contact, owner_id)
        for name, value in data.items():
            setattr(contact, name, value)
        self.db.flush()
        return contact

    def delete(self, contact, owner_id):
        self._require_own(contact, owner_id)
        # Its id and patient stay, for bulk exports since then to name it deleted.
        self.db.add(CareProviderDeletion(id=contact.id, patient_id=contact.patient_id))
        self.db.delete(contact)
        self.db.flush()

    def _require_own(self, contact, owner_id):
        if not is_editable_by(contact, owner_id):
            raise Problem("care_provider_clinic_managed", "This contact was recorded by the clinic or added by "
                          "another app; only the app that added a contact can change or remove it.")

    def _save(self, contact):
        self.db.add(contact)
        self.db.flush()
        return contact

    def record_for_clinic(self, patient_id, type_, name, is_primary=False, notes=None, **details):
        """Staff record a contact (for example from an intake form): source clinic, never editable by apps."""
        if not patient_exists(self.db, patient_id):
            raise InvalidInput(f"no patient {patient_id} in this clinic")
        if type_ not in TYPES:
            raise InvalidInput(f"type must be one of {', '.join(TYPES)}")
        if not name or not name.strip() or len(name) > 200:
            raise InvalidInput("the name must be 1 to 200 characters")
        if details.get("npi") is not None and not is_valid_npi(details["npi"]):
            raise InvalidInput("the NPI must be 10 digits whose last digit is the Luhn check digit")
        limits = {"practice_name": 200, "specialty": 100, "phone": 40, "fax": 40, "address": 500}
        for field, limit in limits.items():
            value = details.get(field)
            if value is not None and not 1 <= len(value) <= limit:
                raise InvalidInput(f"{field} must be 1 to {limit} characters")
        contact = CareProvider(id=uuid.uuid4(), patient_id=patient_id, type=type_, name=name.strip(),
                               is_primary=is_primary, source="clinic", clinic_notes=notes, **details)
        return self._save(contact)


def care_provider_service_factory(context, request):
    return CareProviderService(clinic_scope(context).db)


def care_provider_rows_for_export(since=None):
    """The rows of the outside care providers a bulk export writes (those of patients the API may see), oldest
    first."""
    return visible_for_export(select(*CareProvider.__table__.columns), CareProvider.patient_id,
                              CareProvider.updated_at, since).order_by(CareProvider.created_at, CareProvider.id)


def care_provider_deletions_for_export(since):
    """(id, patient_id) of the contacts removed at or after `since`, of patients the API may see, oldest first:
    what a bulk export since then names as deleted."""
    return (visible(select(CareProviderDeletion.id, CareProviderDeletion.patient_id), CareProviderDeletion.patient_id)
            .where(CareProviderDeletion.deleted_at >= since)
            .order_by(CareProviderDeletion.deleted_at, CareProviderDeletion.id))
