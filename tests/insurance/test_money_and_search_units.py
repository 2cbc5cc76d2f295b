"""Unit tests of the pure rules: minor units and the folded payer name."""

from decimal import Decimal

import pytest

from clinicrecords.insurance.money import fits_minor_units, minor_units, plain_amount
from clinicrecords.insurance.payers import fold


@pytest.mark.parametrize("amount, currency, fits", [
    ("10.50", "USD", True), ("10.5", "EUR", True), ("10.505", "GBP", False), ("1000", "JPY", True),
    ("1000.0", "JPY", True), ("1000.5", "JPY", False), ("1.234", "KWD", True), ("1.2345", "KWD", False),
    ("1E+3", "USD", True),
])
def test_minor_units(amount, currency, fits):
    assert fits_minor_units(Decimal(amount), currency) is fits


def test_amounts_are_shown_in_minor_units():
    assert (minor_units("USD"), minor_units("JPY"), minor_units("BHD")) == (2, 0, 3)
    assert str(plain_amount(Decimal("40.5000"), "USD")) == "40.50"
    assert str(plain_amount(Decimal("1000.0000"), "JPY")) == "1000"


@pytest.mark.parametrize("name, folded", [
    ("Société Mutuelle de Santé", "societe mutuelle de sante"), ("ØSTFOLD", "ostfold"),
    ("Straße", "strasse"), ("Łódź Care", "lodz care"), ("Ｆｕｌｌｗｉｄｔｈ", "fullwidth"),
])
def test_fold(name, folded):
    assert fold(name) == folded
