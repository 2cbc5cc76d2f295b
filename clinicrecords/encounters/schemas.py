"""Encounter bodies. A draft opened through the API is a blank note: it has no field for note text, and order
or billing content and underscore-prefixed fields answer `unknown_field` (spec, routes table)."""

from marshmallow import ValidationError, fields, validate, validates_schema

from clinicrecords.api.pagination import UpdatedSinceListQuery
from clinicrecords.api.schemas import Instant, RequestSchema
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.providers.interfaces import SANDBOX_PROVIDER_IDS
from clinicrecords.sandbox.interfaces import sandbox_id

STATUSES = ("draft", "completed")
CLASSES = ("ambulatory", "virtual", "home", "emergency", "inpatient")
ORDER_AND_BILLING_FIELDS = frozenset({"diagnosisData", "treatment_plans", "follow_up_plans", "services",
                                      "diagnoses"})

SANDBOX_ENCOUNTER_IDS = [sandbox_id(f"encounter:{n}") for n in range(1, 5)]
# Seeded draft opened by no app: PATCH on it answers note_not_editable.
SANDBOX_CLINIC_DRAFT_ID = SANDBOX_ENCOUNTER_IDS[2]
# Opened by the sandbox's own workspace and untouched: its test keys may PATCH it.
SANDBOX_APP_DRAFT_ID = sandbox_id("encounter:app-draft-1")


_NOT_BEFORE_START = "not before the start"


class _BlankNote(RequestSchema):
    FORBIDDEN_FIELDS = ORDER_AND_BILLING_FIELDS
    REFUSE_UNDERSCORE_FIELDS = True

    @validates_schema
    def _end_after_start(self, data, **kwargs):
        if data.get("start") and data.get("end") and data["end"] < data["start"]:
            raise ValidationError("The end is before the start.", "end")


class EncounterCreate(_BlankNote):
    EXAMPLE = {"patient_id": str(SANDBOX_PATIENT_IDS[0]), "provider_id": str(SANDBOX_PROVIDER_IDS[0]),
               "class": "virtual", "type": "Follow-up consultation", "start": "2026-03-02T09:00:00Z",
               "end": "2026-03-02T09:20:00Z", "reason": "Review of home blood pressure readings"}

    patient_id = fields.UUID(required=True)
    provider_id = fields.UUID(allow_none=True)
    encounter_class = fields.String(data_key="class", required=True, validate=validate.OneOf(CLASSES))
    type = fields.String(validate=validate.Length(1, 100), allow_none=True)
    start = Instant(required=True)
    end = Instant(allow_none=True, metadata={"description": _NOT_BEFORE_START})
    reason = fields.String(validate=validate.Length(1, 500), allow_none=True)


class EncounterUpdate(_BlankNote):
    """Only type, start, end and reason of a draft the caller's app opened."""

    EXAMPLE = {"reason": "Review of home blood pressure readings and medication side effects",
               "end": "2026-03-02T09:30:00Z"}

    type = fields.String(validate=validate.Length(1, 100), allow_none=True)
    start = Instant(metadata={"description": "not after the end (as sent, or as stored)"})
    end = Instant(allow_none=True, metadata={"description": f"{_NOT_BEFORE_START} (as sent, or as stored)"})
    reason = fields.String(validate=validate.Length(1, 500), allow_none=True)


class EncounterListQuery(UpdatedSinceListQuery):
    patient_id = fields.UUID()
    status = fields.String(validate=validate.OneOf(STATUSES))


class PeriodOut(RequestSchema):
    start = fields.DateTime()
    end = fields.DateTime(allow_none=True)


class EncounterOut(RequestSchema):
    """The plain encounter shape (documentation): no clinical text, no billing."""

    id = fields.UUID()
    patient_id = fields.UUID()
    provider_id = fields.UUID(allow_none=True)
    status = fields.String(validate=validate.OneOf(STATUSES))
    encounter_class = fields.String(data_key="class", validate=validate.OneOf(CLASSES))
    type = fields.String(allow_none=True)
    period = fields.Nested(PeriodOut)
    reason = fields.String(allow_none=True)
    source = fields.String(validate=validate.OneOf(("api", "clinic")))
    editable = fields.Boolean()
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
