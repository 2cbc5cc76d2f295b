from marshmallow import fields, validate

from clinicrecords.api.pagination import ListQuery
from clinicrecords.review.representations import REVIEW_STATUSES


class SubmissionListQuery(ListQuery):
    review_status = fields.String(validate=validate.OneOf(REVIEW_STATUSES))
    resource_type = fields.String(validate=validate.OneOf(("allergy", "condition", "medication_statement",
                                                           "referral")))
