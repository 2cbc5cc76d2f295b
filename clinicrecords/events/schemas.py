from marshmallow import fields, validate

from clinicrecords.api.schemas import RequestSchema

MAX_SEQ = 2**63 - 1
DEFAULT_LIMIT = 50
MAX_LIMIT = 200


class FeedQuery(RequestSchema):
    after_seq = fields.Integer(load_default=0, validate=validate.Range(0, MAX_SEQ))
    limit = fields.Integer(load_default=DEFAULT_LIMIT, validate=validate.Range(1, MAX_LIMIT))


class EventOut(RequestSchema):
    """A change-feed event (documentation); also the webhook payload."""

    id = fields.UUID()
    type = fields.String()
    clinic_id = fields.UUID()
    subject_id = fields.UUID()
    seq = fields.Integer()
    data = fields.Dict()
    created_at = fields.DateTime()
