from marshmallow import fields, validate

from clinicrecords.api.render import iso
from clinicrecords.api.schemas import RequestSchema
from clinicrecords.review.kinds import CHART_KINDS

REVIEW_STATUSES = ("pending", "confirmed", "rejected")
ACTIONS = ("create", "update", "retract", "no_known_allergies")


def submission_json(submission, request=None):
    return {
        "submission_id": str(submission.id),
        "patient_id": str(submission.patient_id),
        "resource_type": submission.resource_type,
        "action": submission.action,
        "review_status": submission.review_status,
        "target_id": str(submission.target_id),
        "accepted_automatically": submission.accepted_automatically,
        "source": submission.source,
        "submitted_at": iso(submission.submitted_at),
        "decided_at": iso(submission.decided_at),
        "decision_reason": submission.decision_reason,
        "result_record_id": str(submission.result_record_id) if submission.result_record_id else None,
        "client_reference": submission.client_reference,
        "origin_assistant_name": submission.origin_assistant_name,
        "payload": submission.payload,
    }


def staff_submission_json(submission):
    """What operators see: the API shape plus who sent it and who decided."""
    return dict(submission_json(submission), api_key_id=str(submission.api_key_id),
                workspace_id=str(submission.workspace_id) if submission.workspace_id else None,
                decided_by_staff_id=str(submission.decided_by_staff_id) if submission.decided_by_staff_id else None)


class SubmissionOut(RequestSchema):
    """The plain submission shape (documentation)."""

    submission_id = fields.UUID()
    patient_id = fields.UUID()
    resource_type = fields.String(validate=validate.OneOf(CHART_KINDS))
    action = fields.String(validate=validate.OneOf(ACTIONS))
    review_status = fields.String(validate=validate.OneOf(REVIEW_STATUSES))
    target_id = fields.UUID()
    accepted_automatically = fields.Boolean()
    source = fields.String()
    submitted_at = fields.DateTime()
    decided_at = fields.DateTime(allow_none=True)
    decision_reason = fields.String(allow_none=True)
    result_record_id = fields.UUID(allow_none=True)
    client_reference = fields.String(allow_none=True)
    origin_assistant_name = fields.String(allow_none=True)
    payload = fields.Dict()
