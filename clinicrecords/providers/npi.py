"""The US National Provider Identifier: 10 digits, the last a Luhn check digit computed over the prefix
80840 followed by the first nine digits (CMS, "NPI check digit")."""

from marshmallow import ValidationError

NPI_PREFIX = "80840"
NPI_PATTERN = r"^[0-9]{10}$"  # the shape the OpenAPI document states; the check digit is the server's own


def npi_check_digit(first_nine):
    total = 0
    for position, char in enumerate(reversed(NPI_PREFIX + first_nine)):
        digit = int(char)
        if position % 2 == 0:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return (10 - total % 10) % 10


def is_valid_npi(value):
    return (isinstance(value, str) and len(value) == 10 and value.isascii() and value.isdigit()
            and npi_check_digit(value[:9]) == int(value[9]))


def validate_npi(value):
    """A marshmallow validator; the message never repeats the value."""
    if not is_valid_npi(value):
        raise ValidationError("Not a valid NPI: 10 digits whose last digit is the Luhn check digit.")
