from marshmallow import ValidationError, fields, validate, validates_schema

from clinicrecords.api.pagination import ListQuery
from clinicrecords.api.schemas import RequestSchema
from clinicrecords.inventory.services import (
    BANDS,
    GTIN_PATTERN,
    REGULATOR_PATTERN,
    normalize_gtin,
    normalize_regulator_number,
)

MAX_RESULTS = 50
DEFAULT_RESULTS = 20
MAX_RADIUS_KM = 500


class _Gtin(fields.String):
    def _deserialize(self, value, attr, data, **kwargs):
        try:
            return normalize_gtin(super()._deserialize(value, attr, data, **kwargs))
        except ValueError as exc:
            raise ValidationError(str(exc)) from None


class _RegulatorNumber(fields.String):
    def _deserialize(self, value, attr, data, **kwargs):
        try:
            return normalize_regulator_number(super()._deserialize(value, attr, data, **kwargs))
        except ValueError as exc:
            raise ValidationError(str(exc)) from None


class ItemCriteria(RequestSchema):
    """Exactly one of: `q` (medicine name text, typo-tolerant), `gtin` (barcode, GTIN-8/12/13/14 with a valid
    check digit), `regulator_number` (the medicine's licence/registration number)."""

    OBJECT_RULES = {"minProperties": 1, "maxProperties": 1}  # exactly_one

    q = fields.String(validate=validate.Length(2, 200))
    gtin = _Gtin(metadata={"pattern": GTIN_PATTERN})
    regulator_number = _RegulatorNumber(metadata={"pattern": REGULATOR_PATTERN})

    @validates_schema
    def exactly_one(self, data, **kwargs):
        if len(data) != 1:
            raise ValidationError("Give exactly one of q, gtin or regulator_number.")


class NearCriteria(RequestSchema):
    lat = fields.Float(required=True, validate=validate.Range(-90, 90))
    lng = fields.Float(required=True, validate=validate.Range(-180, 180))
    radius_km = fields.Float(required=True, validate=validate.Range(0, MAX_RADIUS_KM, min_inclusive=False))


class ListingSearchRequest(RequestSchema):
    EXAMPLE = {"item": {"q": "amoxicilin"}, "limit": 10}

    item = fields.Nested(ItemCriteria, required=True)
    near = fields.Nested(NearCriteria)
    limit = fields.Integer(load_default=DEFAULT_RESULTS, validate=validate.Range(1, MAX_RESULTS))


class ListingMatchOut(RequestSchema):
    clinic_id = fields.UUID()
    display_name = fields.String()
    item_id = fields.UUID()
    match = fields.String(validate=validate.OneOf(("text", "code")))
    band = fields.String(validate=validate.OneOf(BANDS))
    distance_km = fields.Float(allow_none=True, metadata={"description": "null when `near` was not sent"})
    as_of = fields.DateTime()


class LocationOut(RequestSchema):
    lat = fields.Float()
    lng = fields.Float()


class TillOut(RequestSchema):
    stale = fields.Boolean()
    last_reported_at = fields.DateTime(allow_none=True)


class PharmacyOut(RequestSchema):
    clinic_id = fields.UUID()
    display_name = fields.String()
    location = fields.Nested(LocationOut, allow_none=True)
    till = fields.Nested(TillOut)


class ListingProfileOut(PharmacyOut):
    kind = fields.String(validate=validate.OneOf(("clinic", "pharmacy")))


class ListingItemOut(RequestSchema):
    """A linked item as the listing shows it: names, codes, band; never a quantity."""

    id = fields.UUID()
    name = fields.String()
    generic_name = fields.String(allow_none=True)
    brand_name = fields.String(allow_none=True)
    codes = fields.Dict()
    band = fields.String(validate=validate.OneOf(BANDS))
    as_of = fields.DateTime()


class PharmacyListQuery(ListQuery):
    pass
