"""Encounters: apps open blank drafts and adjust their frame until a person touches them; staff edit, sign
(which completes the encounter) and mark notes sensitive (hidden from every key)."""

import uuid

from sqlalchemy import func, select
from zope.interface import implementer

from clinicrecords.db import security_events
from clinicrecords.api.pagination import keyset_page
from clinicrecords.api.problems import Problem, invalid
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.encounters.models import Encounter
from clinicrecords.encounters.representations import is_editable_by
from clinicrecords.errors import InvalidInput
from clinicrecords.patients.services import is_visible_patient, visible, visible_for_export
from clinicrecords.providers.services import provider_exists
from clinicrecords.encounters.interfaces import IEncounterService


@implementer(IEncounterService)
class EncounterService:
    def __init__(self, db):
        self.db = db

    def _visible(self):
        return visible(select(Encounter), Encounter.patient_id).where(Encounter.sensitive.is_(False))

    def get(self, encounter_id):
        """The encounter, or None when absent, sensitive or its patient restricted (one answer for all)."""
        return self.db.scalar(self._visible().where(Encounter.id == encounter_id))

    def list(self, query, cursors):
        statement = self._visible()
        if query.get("updated_since"):
            statement = statement.where(Encounter.updated_at >= query["updated_since"])
        if query.get("patient_id"):
            statement = statement.where(Encounter.patient_id == query["patient_id"])
        if query.get("status"):
            statement = statement.where(Encounter.status == query["status"])
        return keyset_page(cursors, self.db, statement, (Encounter.created_at, Encounter.id), query)

    def open_draft(self, data, owner_id):
        """A blank draft: nothing is ordered, prescribed, billed or signed."""
        errors = []
        if not is_visible_patient(self.db, data["patient_id"]):
            errors.append({"pointer": "/patient_id", "message": "No patient with this id in this clinic."})
        if data.get("provider_id") and not provider_exists(self.db, data["provider_id"]):
            errors.append({"pointer": "/provider_id", "message": "No clinician with this id in this clinic."})
        if errors:
            raise invalid(errors)
        encounter = Encounter(id=uuid.uuid4(), patient_id=data["patient_id"], provider_id=data.get("provider_id"),
                              status="draft", encounter_class=data["encounter_class"], type=data.get("type"),
                              reason=data.get("reason"), start_at=data["start"], end_at=data.get("end"),
                              opened_by_owner_id=owner_id)
        self.db.add(encounter)
        self.db.flush()
        return encounter

    def update_draft(self, encounter, data, owner_id):
        locked = self.db.scalar(select(Encounter).where(Encounter.id == encounter.id).with_for_update())
        if not is_editable_by(locked, owner_id):
            raise Problem("note_not_editable", _not_editable_reason(locked, owner_id))
        start = data.get("start", locked.start_at)
        end = data["end"] if "end" in data else locked.end_at
        if end is not None and end < start:
            raise invalid([{"pointer": "/end" if "end" in data else "/start",
                            "message": "The end is before the start."}])
        for name, column in (("type", "type"), ("reason", "reason"), ("start", "start_at"), ("end", "end_at")):
            if name in data:
                setattr(locked, column, data[name])
        self.db.flush()
        return locked


class EncounterStaff:
    """Staff actions (operator commands, the sandbox's test helpers): they see every encounter, sensitive or not."""

    def __init__(self, db):
        self.db = db

    def _staff_get(self, encounter_id):
        encounter = self.db.scalar(select(Encounter).where(Encounter.id == encounter_id).with_for_update())
        if encounter is None:
            raise InvalidInput(f"no encounter {encounter_id} in this clinic")
        return encounter

    def touch(self, encounter_id):
        """A clinician edited the note or its visit details: the app can no longer change it."""
        encounter = self._staff_get(encounter_id)
        if encounter.status != "draft":
            raise InvalidInput("the encounter is signed (completed); a signed note is not edited")
        encounter.touched_at = _database_now(self.db)
        self.db.flush()
        return encounter

    def sign(self, encounter_id):
        """Signing completes the encounter (the only move to completed)."""
        encounter = self._staff_get(encounter_id)
        if encounter.status != "draft":
            raise InvalidInput("the encounter is already signed")
        encounter.signed_at = _database_now(self.db)
        encounter.status = "completed"
        if encounter.end_at is None:
            encounter.end_at = max(encounter.signed_at, encounter.start_at)
        self.db.flush()
        return encounter

    def mark_sensitive(self, encounter_id):
        encounter = self._staff_get(encounter_id)
        if not encounter.sensitive:
            security_events.record(self.db, security_events.ENCOUNTER_SENSITIVE, encounter_id=str(encounter.id),
                                   clinic_id=security_events.bound_clinic_id(self.db))
        encounter.sensitive = True
        self.db.flush()
        return encounter


def mark_sensitive_again(db, encounter_id):
    """An encounter marked sensitive after a restore's point in time, marked again (docs/operations.md); None
    when the clinic (`db` bound to it) has no such encounter."""
    encounter = db.get(Encounter, encounter_id)
    if encounter is not None and not encounter.sensitive:
        encounter.sensitive = True
        db.flush()
    return encounter


def staff_result(encounter):
    """What a staff action on an encounter reports."""
    return {"encounter_id": str(encounter.id), "status": encounter.status, "sensitive": encounter.sensitive,
            "touched": encounter.touched_at is not None, "signed": encounter.signed_at is not None}



def _database_now(db):
    """The database's clock, which the row's own created_at and updated_at read too (not clock.now())."""
    return db.scalar(select(func.now()))


def _not_editable_reason(encounter, owner_id):
    if encounter.opened_by_owner_id is None or encounter.opened_by_owner_id != owner_id:
        return "Only a draft this app opened can be changed; this one was opened by the clinic or another app."
    if encounter.signed_at is not None:
        return "The note has been signed."
    return "A clinician has edited this note; the app can no longer change it."


def encounter_service_factory(context, request):
    return EncounterService(clinic_scope(context).db)


def encounter_provider_ids_for_export():
    """The select of the clinicians (provider ids) the encounters a bulk export writes name: Patient/$export
    writes those Practitioners beside the encounters."""
    return (visible(select(Encounter.provider_id), Encounter.patient_id)
            .where(Encounter.sensitive.is_(False), Encounter.provider_id.is_not(None)))


def encounter_rows_for_export(since=None):
    """The rows of the encounters a bulk export writes, oldest first: as the reads, never a note the clinic
    marked sensitive nor one of a restricted patient."""
    return (visible_for_export(select(*Encounter.__table__.columns), Encounter.patient_id, Encounter.updated_at,
                               since)
            .where(Encounter.sensitive.is_(False)).order_by(Encounter.created_at, Encounter.id))


def sensitive_encounter_ids(db):
    """The ids of the encounters marked sensitive now: a bulk export's download leaves their lines out, though
    the file was written before."""
    return {str(encounter_id) for encounter_id in db.scalars(select(Encounter.id).where(Encounter.sensitive))}
