"""Bodies of the test helpers. Every EXAMPLE names a record of the sandbox seed (the same ids in every sandbox)."""

from marshmallow import Schema, fields, validate

from clinicrecords.api.schemas import RequestSchema, WholeNumber
from clinicrecords.clinical.services import REFERRAL_STATUSES
from clinicrecords.review.interfaces import CHART_KINDS
from clinicrecords.sandbox.interfaces import sandbox_id

_STAFF_ID = fields.UUID(load_default=None, metadata={"description": "the clinician acting (optional)"})


class SubmissionAccept(RequestSchema):
    EXAMPLE = {"submission_id": str(sandbox_id("submission:1"))}
    submission_id = fields.UUID(required=True)
    staff_id = _STAFF_ID


class SubmissionDecline(RequestSchema):
    EXAMPLE = {"submission_id": str(sandbox_id("submission:1")), "reason": "Not confirmed with the patient"}
    submission_id = fields.UUID(required=True)
    reason = fields.String(load_default=None, validate=validate.Length(max=500))
    staff_id = _STAFF_ID


class ItemReview(RequestSchema):
    EXAMPLE = {"kind": "condition", "item_id": str(sandbox_id("condition:2"))}
    kind = fields.String(required=True, validate=validate.OneOf(CHART_KINDS))
    item_id = fields.UUID(required=True)
    staff_id = _STAFF_ID


class ReferralAct(RequestSchema):
    EXAMPLE = {"referral_id": str(sandbox_id("referral:2")), "status": "accepted"}
    referral_id = fields.UUID(required=True)
    status = fields.String(required=True, validate=validate.OneOf(REFERRAL_STATUSES))
    reason = fields.String(load_default=None, validate=validate.Length(max=500))


class EncounterTouch(RequestSchema):
    EXAMPLE = {"encounter_id": str(sandbox_id("encounter:app-draft-1"))}
    encounter_id = fields.UUID(required=True)


class EncounterSign(RequestSchema):
    EXAMPLE = {"encounter_id": str(sandbox_id("encounter:3"))}
    encounter_id = fields.UUID(required=True)


class CoverageConfirm(RequestSchema):
    EXAMPLE = {"coverage_id": str(sandbox_id("coverage:2"))}
    coverage_id = fields.UUID(required=True)


class CoverageActivate(RequestSchema):
    EXAMPLE = {"coverage_id": str(sandbox_id("coverage:1"))}
    coverage_id = fields.UUID(required=True)


class StockSet(RequestSchema):
    EXAMPLE = {"item_id": str(sandbox_id("inventory-item:paracetamol-500")), "quantity": 0}
    item_id = fields.UUID(required=True)
    quantity = WholeNumber(required=True, validate=validate.Range(min=0, max=10_000_000))


class TestHelperResult(Schema):
    """What the staff action's operator command prints, under `result`."""

    __test__ = False
    object = fields.String(required=True, metadata={"enum": ["test_helper_result"]})
    action = fields.String(required=True, metadata={"description": "e.g. submissions.accept"})
    clinic_id = fields.UUID(required=True)
    result = fields.Dict(required=True, metadata={"description": "the operator command's JSON output"})
