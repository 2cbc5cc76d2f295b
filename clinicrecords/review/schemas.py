from marshmallow import INCLUDE, fields, validate

from clinicrecords.api.pagination import ListQuery
from clinicrecords.api.schemas import RequestSchema
from clinicrecords.review.kinds import CHART_KINDS
from clinicrecords.review.representations import REVIEW_STATUSES


class SubmissionListQuery(ListQuery):
    review_status = fields.String(validate=validate.OneOf(REVIEW_STATUSES))
    resource_type = fields.String(validate=validate.OneOf(CHART_KINDS))


def _text(maximum):
    return fields.String(validate=validate.Length(1, maximum), allow_none=True)


class SubmissionChange(RequestSchema):
    """A JSON merge patch (RFC 7396) of what the submission's send carried: any field that send accepts (the
    kind's POST body for a new item, its PATCH body for a change); `null` removes a field, an object merges
    into an object. The result is validated as that send would be, so which other fields are accepted
    depends on the submission's kind. `patient_id` and `no_known_allergies` never change."""

    EXAMPLE = {"criticality": "low", "note": "The patient describes a milder reaction than first reported."}

    # An empty merge patch changes nothing: refused ("Send at least one field to change").
    OBJECT_RULES = {"minProperties": 1}

    class Meta:
        unknown = INCLUDE  # the kind's send schema reads the merged body, unknown fields included

    # What every kind's send carries; the rest is the kind's.
    client_reference = _text(200)
    origin_assistant_name = _text(200)
    note = _text(2000)
