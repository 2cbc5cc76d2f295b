"""Exact money: Decimal in, NUMERIC stored, never a float; each currency's minor units respected."""

from decimal import Decimal

from marshmallow import fields

# ISO 4217 minor units where they differ from 2.
_MINOR_UNITS = {
    **dict.fromkeys(("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND",
                     "VUV", "XAF", "XOF", "XPF"), 0),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
}
# NUMERIC(18, 4) holds 14 integer digits.
MAX_AMOUNT = Decimal(99999999999999)


def minor_units(currency):
    return _MINOR_UNITS.get(currency, 2)


def fits_minor_units(amount, currency):
    """True when `amount` has no more decimal places than the currency allows (trailing zeros are fine)."""
    exponent = amount.normalize().as_tuple().exponent
    return exponent >= -minor_units(currency)


def minor_units_message(currency):
    places = minor_units(currency)
    return (f"{currency} amounts have no decimal places." if places == 0
            else f"{currency} amounts have at most {places} decimal places.")


class Money(fields.Field):
    """A JSON number greater than 0, read as an exact Decimal (strings and booleans are refused)."""

    default_error_messages = {
        "invalid": "Must be a number.",
        "positive": "Must be greater than 0.",
        "too_large": f"Must be at most {MAX_AMOUNT}.",
    }

    def __init__(self, **kwargs):
        # What _deserialize accepts, as the OpenAPI document states it (null is refused like any non-number).
        metadata = {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_AMOUNT, **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            raise self.make_error("invalid")
        amount = Decimal(value)
        if not amount.is_finite():
            raise self.make_error("invalid")
        if amount <= 0:
            raise self.make_error("positive")
        if amount > MAX_AMOUNT:
            raise self.make_error("too_large")
        return amount

    def _serialize(self, value, attr, obj, **kwargs):
        return value


def plain_amount(amount, currency):
    """An amount as shown: quantized to the currency's minor units (Decimal; the renderer keeps it exact)."""
    if amount is None:
        return None
    return amount.quantize(Decimal(1).scaleb(-minor_units(currency)))
