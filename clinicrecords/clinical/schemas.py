"""Request bodies of the clinical routes, and their documented plain shapes.

Length bounds of the allergy change request (the spec gives 20, 2000, 200, 200, 200 without names):
reactions at most 20 items, note at most 2000 characters, a reaction's description at most 200,
client_reference at most 200, origin_assistant_name at most 200 (docs/decisions/0012-clinical-items-review-queue.md,
"Length bounds").
"""

from marshmallow import ValidationError, fields, validate, validates_schema

from clinicrecords.api.object_rules import all_of, alone_when, at_least_one_of, either
from clinicrecords.api.pagination import UpdatedSinceListQuery
from clinicrecords.api.schemas import JsonBoolean, RequestSchema
from clinicrecords.clinical import terminology
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.sandbox.interfaces import sandbox_id

ALLERGY_CLINICAL_STATUSES = ("active", "inactive", "resolved", "entered_in_error")
ALLERGY_CATEGORIES = ("food", "medication", "environment", "biologic")
CRITICALITIES = ("low", "high", "unable_to_assess")
ALLERGY_TYPES = ("allergy", "intolerance")
CONDITION_STATUSES = ("active", "recurrence", "relapse", "inactive", "remission", "resolved", "entered_in_error")
MEDICATION_STATUSES = ("active", "completed", "stopped", "intended", "on_hold", "not_taken", "entered_in_error")
REFERRAL_STATUSES = ("received", "accepted", "scheduled", "completed", "declined", "cancelled", "entered_in_error")
REFERRAL_PRIORITIES = ("routine", "urgent", "asap", "stat")
RETRACTED = "entered_in_error"

# Seeded records the examples below point at (clinicrecords/clinical/seed.py).
SANDBOX_ALLERGY_ID = sandbox_id("allergy:1")
SANDBOX_CONDITION_ID = sandbox_id("condition:1")
SANDBOX_MEDICATION_STATEMENT_ID = sandbox_id("medication_statement:1")
SANDBOX_REFERRAL_ID = sandbox_id("referral:2")  # received: the clinic has not acted on it

_PATIENT = str(SANDBOX_PATIENT_IDS[0])
_SECOND_PATIENT = str(SANDBOX_PATIENT_IDS[1])


def _text(maximum):
    return fields.String(validate=validate.Length(1, maximum))


_SENT_FIELDS = ("client_reference", "origin_assistant_name")


class _Sent(RequestSchema):
    """What every send carries besides the item itself."""

    client_reference = _text(200)
    origin_assistant_name = _text(200)


def _status(values, create):
    return fields.String(validate=validate.OneOf([v for v in values if not (create and v == RETRACTED)]))


def _retraction_alone(data, status_field):
    """entered_in_error proposes a retraction: it cannot be combined with other changes."""
    changes = set(data) - set(_SENT_FIELDS)
    if not changes:
        raise ValidationError("Send at least one change.", "_schema")
    if data.get(status_field) == RETRACTED and changes != {status_field}:
        raise ValidationError(f"{RETRACTED} proposes a retraction and cannot be combined with other changes "
                              f"({', '.join(sorted(changes - {status_field}))}).", status_field)


def _change_rules(schema, status_field):
    """What `_retraction_alone` enforces, as the document states it."""
    changes = sorted(field.data_key or name for name, field in schema.fields.items() if name not in _SENT_FIELDS)
    return all_of(
        at_least_one_of(changes, f"Send at least one change; {' and '.join(_SENT_FIELDS)} alone are none."),
        alone_when(status_field, RETRACTED, _SENT_FIELDS,
                   f"{status_field} {RETRACTED} proposes a retraction and cannot be combined with other changes."))


class _Immutable:
    """A change request that names a field that never changes gets a message saying what to do instead.
    `STATUS_FIELD` names the field whose entered_in_error proposes a retraction (`_retraction_alone`)."""

    IMMUTABLE: dict = {}
    STATUS_FIELD = "clinical_status"

    def load(self, data, *args, **kwargs):
        if isinstance(data, dict) and self.IMMUTABLE.keys() & data.keys():
            raise ValidationError({name: [message] for name, message in self.IMMUTABLE.items() if name in data})
        return super().load(data, *args, **kwargs)

    def object_rules(self):
        return _change_rules(self, self.STATUS_FIELD)


class Reaction(RequestSchema):
    manifestation = fields.List(_text(200), required=True, validate=validate.Length(1, 20))
    description = _text(200)


class SubstanceOut(RequestSchema):
    """The substance as answered (documentation): a legacy_text name has no RxNorm code."""

    text = fields.String(allow_none=True)
    rxnorm = fields.String(allow_none=True)


class Substance(RequestSchema):
    OBJECT_RULES = {"minProperties": 1}  # _named

    text = _text(200)
    rxnorm = fields.String(validate=validate.Regexp(r"^[0-9]{1,20}$", error="An RxNorm code is an RxCUI: digits."))

    @validates_schema
    def _named(self, data, **kwargs):
        if not data:
            raise ValidationError("Give the substance's text, its RxNorm code, or both.", "_schema")
        if "text" in data and terminology.is_no_allergy_word(data["text"]):
            raise ValidationError("This is not a substance. State no known allergies with "
                                  "{\"no_known_allergies\": true} instead.", "text")


class _AllergyFields(RequestSchema):
    category = fields.List(fields.String(validate=validate.OneOf(ALLERGY_CATEGORIES)), validate=validate.Length(max=4),
                           metadata={"uniqueItems": True})  # _categories_once
    criticality = fields.String(validate=validate.OneOf(CRITICALITIES))
    type = fields.String(validate=validate.OneOf(ALLERGY_TYPES))
    reactions = fields.List(fields.Nested(Reaction), validate=validate.Length(max=20))
    onset_date = fields.Date()
    note = _text(2000)

    @validates_schema
    def _categories_once(self, data, **kwargs):
        if len(set(data.get("category", []))) != len(data.get("category", [])):
            raise ValidationError("Give each category once.", "category")


class AllergyCreate(_Sent, _AllergyFields):
    EXAMPLE = {
        "patient_id": _SECOND_PATIENT, "substance": {"text": "Amoxicillin", "rxnorm": "723"},
        "clinical_status": "active", "category": ["medication"], "criticality": "high", "type": "allergy",
        "reactions": [{"manifestation": ["hives"], "description": "Rash within an hour of the first dose"}],
        "onset_date": "2021-06-01", "client_reference": "intake-7781-allergy-1",
        "origin_assistant_name": "Intake Assistant",
    }

    _STATEMENT_FIELDS = ("patient_id", "no_known_allergies", *_SENT_FIELDS, "note")
    OBJECT_RULES = either("no_known_allergies", _STATEMENT_FIELDS, ["substance"],
                          "An allergy names its substance; a statement of no known allergies carries no allergy "
                          "details.")

    patient_id = fields.UUID(required=True)
    no_known_allergies = JsonBoolean(validate=validate.Equal(True, error="Send true, or leave it out."))
    substance = fields.Nested(Substance)
    clinical_status = _status(ALLERGY_CLINICAL_STATUSES, create=True)

    @validates_schema
    def _kind(self, data, **kwargs):
        clinical = set(data) - set(self._STATEMENT_FIELDS)
        if data.get("no_known_allergies"):
            if clinical:
                raise ValidationError({name: ["A statement of no known allergies carries no allergy details."]
                                       for name in clinical})
        elif "substance" not in data:
            raise ValidationError("Name the substance, or send {\"no_known_allergies\": true}.", "substance")


class AllergyChange(_Immutable, _Sent, _AllergyFields):
    EXAMPLE = {"clinical_status": "resolved", "note": "Tolerated a supervised challenge in 2024.",
               "client_reference": "intake-7781-allergy-1-change"}
    IMMUTABLE = {
        "substance": "The substance can never change: a different substance is a new allergy "
                     "(POST /v1/clinics/{clinic_id}/allergies).",
        "patient_id": "An allergy stays with its patient.",
    }

    clinical_status = _status(ALLERGY_CLINICAL_STATUSES, create=False)

    @validates_schema
    def _retraction(self, data, **kwargs):
        _retraction_alone(data, self.STATUS_FIELD)


def _icd10_field(required):
    def check(value):
        if terminology.icd10(value) is None:
            raise ValidationError("Not a real ICD-10-CM code (category or subcategory, e.g. E11.9).")
    return fields.String(required=required, validate=[validate.Length(1, 10), check])


def _dates_in_order(data, start, end):
    if data.get(start) and data.get(end) and data[end] < data[start]:
        raise ValidationError(f"{end} cannot be before {start}.", end)


class ConditionCreate(_Sent):
    EXAMPLE = {"patient_id": _SECOND_PATIENT, "icd10_code": "I10", "display": "Essential hypertension",
               "clinical_status": "active", "onset_date": "2019-03-15",
               "client_reference": "intake-7781-condition-1"}

    patient_id = fields.UUID(required=True)
    icd10_code = _icd10_field(required=True)
    display = _text(200)
    clinical_status = _status(CONDITION_STATUSES, create=True)
    onset_date = fields.Date()
    abatement_date = fields.Date(metadata={"description": "not before onset_date, when both are sent"})
    note = _text(2000)

    @validates_schema
    def _order(self, data, **kwargs):
        _dates_in_order(data, "onset_date", "abatement_date")


class ConditionChange(_Immutable, _Sent):
    EXAMPLE = {"clinical_status": "resolved", "abatement_date": "2024-02-01"}
    IMMUTABLE = {"icd10_code": "The code never changes: a different diagnosis is a new condition.",
                 "patient_id": "A condition stays with its patient."}

    clinical_status = _status(CONDITION_STATUSES, create=False)
    onset_date = fields.Date()
    abatement_date = fields.Date(metadata={"description": "not before onset_date, when both are sent"})
    display = _text(200)
    note = _text(2000)

    @validates_schema
    def _rules(self, data, **kwargs):
        _retraction_alone(data, self.STATUS_FIELD)
        _dates_in_order(data, "onset_date", "abatement_date")


class Medication(RequestSchema):
    OBJECT_RULES = {"minProperties": 1}  # _named

    text = _text(200)
    rxnorm = fields.String(validate=validate.Regexp(r"^[0-9]{1,20}$", error="An RxNorm code is an RxCUI: digits."))

    @validates_schema
    def _named(self, data, **kwargs):
        if not data:
            raise ValidationError("Give the medicine's text, its RxNorm code, or both.", "_schema")


class MedicationStatementCreate(_Sent):
    EXAMPLE = {"patient_id": _SECOND_PATIENT, "medication": {"text": "Metformin 500 mg tablet", "rxnorm": "6809"},
               "status": "active", "dosage_text": "500 mg twice a day with meals", "effective_start": "2022-01-10",
               "client_reference": "intake-7781-med-1"}

    patient_id = fields.UUID(required=True)
    medication = fields.Nested(Medication, required=True)
    status = _status(MEDICATION_STATUSES, create=True)
    dosage_text = _text(200)
    effective_start = fields.Date()
    effective_end = fields.Date(metadata={"description": "not before effective_start, when both are sent"})
    note = _text(2000)

    @validates_schema
    def _order(self, data, **kwargs):
        _dates_in_order(data, "effective_start", "effective_end")


class MedicationStatementChange(_Immutable, _Sent):
    EXAMPLE = {"status": "stopped", "effective_end": "2024-05-01"}
    IMMUTABLE = {"medication": "The medicine never changes: report a different medicine as a new statement.",
                 "patient_id": "A statement stays with its patient."}
    STATUS_FIELD = "status"

    status = _status(MEDICATION_STATUSES, create=False)
    dosage_text = _text(200)
    effective_start = fields.Date()
    effective_end = fields.Date(metadata={"description": "not before effective_start, when both are sent"})
    note = _text(2000)

    @validates_schema
    def _rules(self, data, **kwargs):
        _retraction_alone(data, self.STATUS_FIELD)
        _dates_in_order(data, "effective_start", "effective_end")


class ReferralCreate(_Sent):
    EXAMPLE = {"patient_id": _PATIENT, "reason_code": "M54.50", "reason_text": "Low back pain for 8 weeks",
               "specialty": "Physiotherapy", "priority": "routine", "note": "Please assess for a course of "
               "physiotherapy.", "client_reference": "referral-2291"}

    patient_id = fields.UUID(required=True)
    reason_code = _icd10_field(required=True)
    reason_text = _text(200)
    specialty = fields.String(required=True, validate=validate.Length(1, 200))
    priority = fields.String(validate=validate.OneOf(REFERRAL_PRIORITIES))
    note = _text(2000)


class ReferralChange(_Immutable, _Sent):
    EXAMPLE = {"priority": "urgent", "note": "Pain now wakes the patient at night."}
    IMMUTABLE = {"patient_id": "A referral stays with its patient."}
    STATUS_FIELD = "status"

    reason_code = _icd10_field(required=False)
    reason_text = _text(200)
    specialty = _text(200)
    priority = fields.String(validate=validate.OneOf(REFERRAL_PRIORITIES))
    note = _text(2000)
    status = fields.String(validate=validate.Equal(
        RETRACTED, error="Only the clinic accepts, declines, books, completes or cancels a referral; send "
                         "entered_in_error to take it back."))

    @validates_schema
    def _retraction(self, data, **kwargs):
        _retraction_alone(data, self.STATUS_FIELD)


class ClinicalListQuery(UpdatedSinceListQuery):
    patient_id = fields.UUID()


# Plain shapes (documentation).

class _ItemOut(RequestSchema):
    id = fields.UUID()
    patient_id = fields.UUID()
    verification_status = fields.String(validate=validate.OneOf(("confirmed", "unconfirmed", RETRACTED)))
    accepted_by = fields.String(validate=validate.OneOf(("automatic", "clinic")), allow_none=True)
    reviewed_at = fields.DateTime(allow_none=True)
    reviewed_by_staff_id = fields.UUID(allow_none=True)
    origin_assistant_name = fields.String(allow_none=True)
    note = fields.String(allow_none=True)
    created_at = fields.DateTime()
    updated_at = fields.DateTime()


class AllergyOut(_ItemOut):
    entry = fields.String(validate=validate.OneOf(("recorded", "no_known_allergies", "legacy_text")))
    substance = fields.Nested(SubstanceOut, allow_none=True)
    clinical_status = fields.String(validate=validate.OneOf(ALLERGY_CLINICAL_STATUSES))
    category = fields.List(fields.String())
    criticality = fields.String(allow_none=True)
    type = fields.String(allow_none=True)
    reactions = fields.List(fields.Nested(Reaction))
    onset_date = fields.Date(allow_none=True)


class ConditionOut(_ItemOut):
    icd10_code = fields.String()
    display = fields.String()
    clinical_status = fields.String(validate=validate.OneOf(CONDITION_STATUSES))
    onset_date = fields.Date(allow_none=True)
    abatement_date = fields.Date(allow_none=True)


class MedicationStatementOut(_ItemOut):
    medication = fields.Nested(Medication)
    status = fields.String(validate=validate.OneOf(MEDICATION_STATUSES))
    dosage_text = fields.String(allow_none=True)
    effective_start = fields.Date(allow_none=True)
    effective_end = fields.Date(allow_none=True)


class ReferralOut(_ItemOut):
    status = fields.String(validate=validate.OneOf(REFERRAL_STATUSES))
    status_reason = fields.String(allow_none=True)
    reason_code = fields.String()
    reason_text = fields.String(allow_none=True)
    specialty = fields.String()
    priority = fields.String(validate=validate.OneOf(REFERRAL_PRIORITIES))
