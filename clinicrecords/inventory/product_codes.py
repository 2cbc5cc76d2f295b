"""Product codes: GTIN (GS1 check digit) and regulator numbers."""

import re

from clinicrecords.errors import InvalidInput

_REGULATOR = re.compile(r"^[A-Z0-9][A-Z0-9 ./-]{0,63}$")
# The shapes as the OpenAPI document states them (the check digit and the tidying of case and spaces are
# the server's own: docs/decisions/0070-document-and-server-agree.md).
GTIN_PATTERN = r"^(?:[0-9]{8}|[0-9]{12,14})$"
REGULATOR_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 ./-]{0,63}$"


def gtin_check_digit_ok(digits):
    body, check = digits[:-1], int(digits[-1])
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return (10 - total % 10) % 10 == check


def normalize_gtin(text):
    """GTIN-8, -12, -13 or -14 → its 14-digit form; ValueError when malformed or the check digit is wrong."""
    value = (text or "").strip()
    if not value.isdigit() or len(value) not in (8, 12, 13, 14) or not value.isascii():
        raise ValueError("a GTIN is 8, 12, 13 or 14 digits")
    if not gtin_check_digit_ok(value):
        raise ValueError("the GTIN's check digit is wrong")
    return value.zfill(14)


def normalize_regulator_number(text):
    value = " ".join((text or "").split()).upper()
    if not _REGULATOR.match(value):
        raise ValueError("a regulator number is 1 to 64 letters, digits, spaces, '.', '/' or '-'")
    return value


def gtin_input(text):
    try:
        return normalize_gtin(text)
    except ValueError as exc:
        raise InvalidInput(f"--gtin: {exc}") from None


def regulator_input(text):
    try:
        return normalize_regulator_number(text)
    except ValueError as exc:
        raise InvalidInput(f"--regulator-number: {exc}") from None
