"""Dispensing flag queries and the plain shape (for the OpenAPI document)."""

import datetime

from marshmallow import ValidationError, fields, post_load, validate

from clinicrecords.api.pagination import ListQuery
from clinicrecords.api.schemas import RequestSchema
from clinicrecords.clock import now

CHECK_STATES = ("clear", "flagged", "overridden")
FLAGS = ("early_refill", "duplicate_dispensing")
REASON_CODES = ("lost", "stolen", "damaged", "dose_changed", "travel", "other")
DEFAULT_WINDOW_DAYS = 30
MAX_WINDOW_DAYS = 366


def _today():
    return now().date()


class DispensingFlagQuery(ListQuery):
    """`from` and `to` are UTC calendar dates, both included. Defaults: `to` today, `from` 29 days before `to`
    (30 days in all). The window may span at most 366 days."""

    from_ = fields.Date(data_key="from", metadata={"description": (
        f"UTC calendar date, included; not after `to`, and the window from `from` to `to` spans at most "
        f"{MAX_WINDOW_DAYS} days (default: {DEFAULT_WINDOW_DAYS - 1} days before `to`)")})
    to = fields.Date(metadata={"description": "UTC calendar date, included (default: today)"})
    patient_id = fields.UUID()

    @post_load
    def window(self, data, **kwargs):
        to = data.setdefault("to", _today())
        if to == datetime.date.max:  # the window ends at the start of the day after `to`
            raise ValidationError(f"Must be before {datetime.date.max.isoformat()}.", "to")
        if "from_" not in data:
            if to.toordinal() < DEFAULT_WINDOW_DAYS:
                raise ValidationError(f"The default window ({DEFAULT_WINDOW_DAYS} days up to `to`) starts before "
                                      "0001-01-01: send `from`.", "to")
            data["from_"] = to - datetime.timedelta(days=DEFAULT_WINDOW_DAYS - 1)
        start = data["from_"]
        if start > to:
            raise ValidationError("Must not be after `to`.", "from")
        if (to - start).days + 1 > MAX_WINDOW_DAYS:
            raise ValidationError(f"The window spans at most {MAX_WINDOW_DAYS} days.", "from")
        return data


class IdentifierOut(RequestSchema):
    system = fields.String()
    value = fields.String()


class MedicineOut(RequestSchema):
    name = fields.String()
    generic_name = fields.String(allow_none=True)
    brand_name = fields.String(allow_none=True)
    identifiers = fields.List(fields.Nested(IdentifierOut))


class EvidenceOut(RequestSchema):
    previous_dispensed_at = fields.DateTime()
    previous_days_supply = fields.Integer()
    days_since_previous = fields.Integer()
    supply_days_remaining = fields.Integer()


class ReasonOut(RequestSchema):
    code = fields.String(validate=validate.OneOf(REASON_CODES))
    text = fields.String()


class DispensingFlagOut(RequestSchema):
    id = fields.UUID()
    patient_id = fields.UUID()
    medicine = fields.Nested(MedicineOut)
    days_supply = fields.Integer()
    date = fields.DateTime()
    check_state = fields.String(validate=validate.OneOf(CHECK_STATES))
    flags = fields.List(fields.String(validate=validate.OneOf(FLAGS)))
    evidence = fields.Nested(EvidenceOut)
    reason = fields.Nested(ReasonOut, allow_none=True)
