"""The clinical kinds, each in one place: its collection, its representations and how it reaches the chart
when its submission is confirmed (review.kinds.ReviewKind). `clinical.includeme` registers them from `KINDS`."""

from sqlalchemy import func, or_, select

from clinicrecords.access.interfaces import Permission
from clinicrecords.clinical import representations as rep
from clinicrecords.clinical import resources, schemas
from clinicrecords.clinical.models import Allergy, Condition, MedicationStatement, Referral
from clinicrecords.clinical.schemas import RETRACTED
from clinicrecords.clinical.proposals import ProposalService
from clinicrecords.clinical.terminology import RXNORM
from clinicrecords.review.interfaces import ReviewKind, from_iso
from clinicrecords.review.services import ReviewError

_DATES = ("onset_date", "abatement_date", "effective_start", "effective_end")


def _values(payload, renames=None):
    """Submission payload (JSON) → model attributes."""
    values = {}
    for name, value in payload.items():
        if name == "patient_id":
            continue
        if name in (renames or {}):
            for part, attribute in renames[name].items():
                values[attribute] = value.get(part)
            continue
        values[name] = from_iso(value) if name in _DATES else value
    return values


class _ChartKind(ReviewKind):
    """`create_schema` and `change_schema`: the bodies of a new item's send and of a change (a pending
    submission's change is validated with the one its action was sent with). `collection_name` and
    `collection`: where its items are read, under a clinic; `representation`: its plain and FHIR shapes;
    `fhir_type`: the FHIR resource its FHIR shape is (what a bulk export names its files by)."""

    status_field = "clinical_status"
    fhir_type: str
    collection_name: str
    collection: type
    representation: dict

    def build(self, submission, accepted_by):
        return self.model(id=submission.target_id, patient_id=submission.patient_id, accepted_by=accepted_by,
                          verification_status="unconfirmed" if accepted_by == "automatic" else "confirmed",
                          source_submission_id=submission.id,
                          origin_assistant_name=submission.origin_assistant_name,
                          **_values(submission.payload, self.renames))

    def create(self, db, submission, accepted_by):
        record = self.build(submission, accepted_by)
        db.add(record)
        db.flush()
        return record

    def revise(self, scope, registry, submission, patch):
        return ProposalService(scope, registry[RXNORM], submissions=None).revise(self, submission, patch)

    def change(self, db, submission):
        record = db.get(self.model, submission.target_id)
        for name, value in _values(submission.payload, self.renames).items():
            setattr(record, name, value)
        if getattr(record, self.status_field) == RETRACTED:
            record.verification_status = RETRACTED
        db.flush()
        return record


class AllergyKind(_ChartKind):
    create_schema, change_schema = schemas.AllergyCreate, schemas.AllergyChange
    resource_type = "allergy"
    fhir_type = "AllergyIntolerance"
    model = Allergy
    read_permission = Permission.AllergiesRead
    write_permission = Permission.AllergiesWrite
    renames = {"substance": {"text": "substance_text", "rxnorm": "substance_rxnorm"}}
    summary_fields = ("substance_text", "clinical_status", "criticality", "type")
    collection_name, collection = "allergies", resources.AllergyCollection
    representation = {"plain": rep.allergy_json, "fhir": rep.allergy_fhir, "schema": schemas.AllergyOut}

    def build(self, submission, accepted_by):
        record = super().build(submission, accepted_by)
        record.entry = "no_known_allergies" if submission.action == "no_known_allergies" else "recorded"
        record.clinical_status = record.clinical_status or "active"
        record.category = record.category or []
        record.reactions = record.reactions or []
        return record

    def create(self, db, submission, accepted_by):
        record = super().create(db, submission, accepted_by)
        if record.entry == "recorded":
            # A confirmed allergy ends an earlier statement of no known allergies.
            for statement in db.scalars(self._patient_entries(submission.patient_id, "no_known_allergies")):
                statement.clinical_status = "inactive"
            db.flush()
        return record

    def _patient_entries(self, patient_id, *entries):
        return select(Allergy).where(Allergy.patient_id == patient_id, Allergy.entry.in_(entries),
                                     Allergy.clinical_status == "active")

    def duplicate_of(self, db, submission):
        if submission.action == "no_known_allergies":
            return db.scalars(self._patient_entries(submission.patient_id, "no_known_allergies")).first()
        substance = submission.payload["substance"]
        same = []
        if substance.get("rxnorm"):
            same.append(Allergy.substance_rxnorm == substance["rxnorm"])
        if substance.get("text"):
            same.append(func.lower(Allergy.substance_text) == substance["text"].lower())
        return db.scalars(select(Allergy).where(
            Allergy.patient_id == submission.patient_id, Allergy.entry == "recorded",
            Allergy.clinical_status != RETRACTED, or_(*same))).first()

    def check_confirm(self, db, submission):
        if submission.action == "no_known_allergies" and db.scalars(
                self._patient_entries(submission.patient_id, "recorded", "legacy_text")).first() is not None:
            raise ReviewError("the patient has an active allergy on the chart: a statement of no known allergies "
                              "cannot be confirmed (decline it, or first resolve the allergy)")


class ConditionKind(_ChartKind):
    create_schema, change_schema = schemas.ConditionCreate, schemas.ConditionChange
    resource_type = "condition"
    fhir_type = "Condition"
    model = Condition
    read_permission = Permission.ConditionsRead
    write_permission = Permission.ConditionsWrite
    summary_fields = ("display", "icd10_code", "clinical_status", "onset_date")
    collection_name, collection = "conditions", resources.ConditionCollection
    representation = {"plain": rep.condition_json, "fhir": rep.condition_fhir, "schema": schemas.ConditionOut}


class MedicationStatementKind(_ChartKind):
    create_schema, change_schema = schemas.MedicationStatementCreate, schemas.MedicationStatementChange
    resource_type = "medication_statement"
    fhir_type = "MedicationStatement"
    model = MedicationStatement
    read_permission = Permission.MedicationsRead
    write_permission = Permission.MedicationsWrite
    renames = {"medication": {"text": "medication_text", "rxnorm": "medication_rxnorm"}}
    status_field = "status"
    summary_fields = ("medication_text", "dosage_text", "status", "effective_start")
    collection_name, collection = "medication-statements", resources.MedicationStatementCollection
    representation = {"plain": rep.medication_statement_json, "fhir": rep.medication_statement_fhir,
                      "schema": schemas.MedicationStatementOut}


class ReferralKind(_ChartKind):
    create_schema, change_schema = schemas.ReferralCreate, schemas.ReferralChange
    resource_type = "referral"
    fhir_type = "ServiceRequest"
    model = Referral
    read_permission = Permission.ReferralsRead
    write_permission = Permission.ReferralsWrite
    status_field = "status"
    summary_fields = ("specialty", "reason_code", "reason_text", "priority", "status")
    collection_name, collection = "referrals", resources.ReferralCollection
    representation = {"plain": rep.referral_json, "fhir": rep.referral_fhir, "schema": schemas.ReferralOut}

    def build(self, submission, accepted_by):
        record = super().build(submission, accepted_by)
        record.status = "received"
        record.sender_owner_id = submission.sender_owner_id
        return record

    def check_confirm(self, db, submission):
        if submission.action != "create" and db.get(Referral, submission.target_id).acted_at is not None:
            raise ReviewError("the clinic has already acted on this referral: its sender can no longer change it "
                              "(decline the submission)")


KINDS = (AllergyKind(), ConditionKind(), MedicationStatementKind(), ReferralKind())
