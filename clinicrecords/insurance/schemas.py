"""Insurance bodies and queries, and the plain shapes they answer with (for the OpenAPI document)."""

from marshmallow import fields, validate

from clinicrecords.api.pagination import ListQuery, UpdatedSinceListQuery
from clinicrecords.api.schemas import JsonBoolean, RequestSchema
from clinicrecords.insurance.money import Money
from clinicrecords.sandbox.interfaces import sandbox_id

SANDBOX_PAYER_IDS = [sandbox_id(f"payer:{n}") for n in range(1, 5)]
SANDBOX_CLAIM_IDS = [sandbox_id(f"claim:{n}") for n in range(1, 5)]
SANDBOX_COVERAGE_IDS = [sandbox_id(f"coverage:{n}") for n in range(1, 4)]

METHODS = ("bank_transfer", "eft", "cheque", "other")
ADVICE_STATUSES = ("advised", "recorded", "declined")
MAX_ALLOCATIONS = 500
RELATIONSHIPS = ("self", "spouse", "child", "other")
CONFIRMATION_STATUSES = ("unconfirmed", "confirmed")


# Payers

class PayerListQuery(ListQuery):
    q = fields.String(validate=validate.Length(1, 100))


class PayerOut(RequestSchema):
    id = fields.UUID()
    display_name = fields.String()
    primary_payer_id = fields.String()
    coverage_types = fields.List(fields.String())
    operating_states = fields.List(fields.String())


# Coverages

class SubscriberSchema(RequestSchema):
    relationship = fields.String(required=True, validate=validate.OneOf(RELATIONSHIPS))
    name = fields.String(validate=validate.Length(1, 200), allow_none=True)
    birth_date = fields.Date(allow_none=True)


class PeriodSchema(RequestSchema):
    start = fields.Date(allow_none=True)
    end = fields.Date(allow_none=True)


class CoverageCreate(RequestSchema):
    # Works once per sandbox: a second coverage for the same patient and payer is 409 coverage_exists.
    EXAMPLE = {
        "patient_id": str(sandbox_id("patient:2")), "payer_id": str(SANDBOX_PAYER_IDS[1]),
        "member_id": "SMS-448812", "group_number": "GRP-2001", "subscriber": {"relationship": "self"},
        "period": {"start": "2025-01-01", "end": "2025-12-31"},
    }

    patient_id = fields.UUID(required=True)
    payer_id = fields.UUID(required=True)
    member_id = fields.String(required=True, validate=validate.Length(1, 64))
    group_number = fields.String(validate=validate.Length(1, 64), allow_none=True)
    subscriber = fields.Nested(SubscriberSchema)
    period = fields.Nested(PeriodSchema, allow_none=True)
    # Accepted only to refuse `true` with 409 activation_requires_staff: only staff activate.
    coverage_active = JsonBoolean()


class CoverageUpdate(RequestSchema):
    EXAMPLE = {"group_number": "GRP-1002", "period": {"start": "2025-01-01", "end": "2026-06-30"}}

    payer_id = fields.UUID()
    member_id = fields.String(validate=validate.Length(1, 64))
    group_number = fields.String(validate=validate.Length(1, 64), allow_none=True)
    subscriber = fields.Nested(SubscriberSchema)
    period = fields.Nested(PeriodSchema, allow_none=True)
    coverage_active = JsonBoolean()


class CoverageListQuery(UpdatedSinceListQuery):
    patient_id = fields.UUID()


class CoverageOut(RequestSchema):
    id = fields.UUID()
    patient_id = fields.UUID()
    payer_id = fields.UUID()
    member_id = fields.String()
    group_number = fields.String(allow_none=True)
    subscriber = fields.Nested(SubscriberSchema)
    period = fields.Nested(PeriodSchema, allow_none=True)
    confirmation_status = fields.String(validate=validate.OneOf(CONFIRMATION_STATUSES))
    coverage_active = fields.Boolean()
    created_at = fields.DateTime()
    updated_at = fields.DateTime()


# Payment advices

class AllocationIn(RequestSchema):
    claim_id = fields.UUID(required=True)
    amount = Money(required=True)


class PaymentAdviceCreate(RequestSchema):
    """Spec: Payment advice create request. No other properties are accepted (nor inside allocations)."""

    EXAMPLE = {
        "insurance_company_id": str(SANDBOX_PAYER_IDS[0]), "paid_on": "2025-03-14", "amount": 290.50,
        "currency": "USD", "method": "bank_transfer", "reference": "NWH-REMIT-000381",
        "allocations": [{"claim_id": str(SANDBOX_CLAIM_IDS[0]), "amount": 250.00},
                        {"claim_id": str(SANDBOX_CLAIM_IDS[1]), "amount": 40.50}],
    }

    insurance_company_id = fields.UUID(required=True)
    paid_on = fields.Date(required=True)
    amount = Money(required=True)
    currency = fields.String(validate=validate.Length(1, 10))
    method = fields.String(required=True, validate=validate.OneOf(METHODS))
    reference = fields.String(validate=validate.Length(max=200))
    allocations = fields.List(fields.Nested(AllocationIn), validate=validate.Length(max=MAX_ALLOCATIONS))


class AllocationOut(RequestSchema):
    claim_id = fields.UUID()
    amount = fields.Decimal(as_string=False)


class PaymentAdviceOut(RequestSchema):
    id = fields.UUID()
    insurance_company_id = fields.UUID()
    paid_on = fields.Date()
    amount = fields.Decimal(as_string=False)
    currency = fields.String()
    method = fields.String(validate=validate.OneOf(METHODS))
    reference = fields.String(allow_none=True)
    status = fields.String(validate=validate.OneOf(ADVICE_STATUSES))
    created_at = fields.DateTime()
    allocations = fields.List(fields.Nested(AllocationOut))
