"""Recovery codes: ten distinct codes of the unambiguous alphabet with 50 random bits each, stored only as keyed
salted hashes; what a person types is read kindly (case, spaces, dashes, look-alike letters); the match names
the code used, and a used code (None in its place) or another pepper's hash never matches."""

import math
import re

import pytest
from zope.interface.verify import verifyObject

from clinicrecords.identity.interfaces import IRecoveryCodes
from clinicrecords.identity.recovery_codes import ALPHABET, RecoveryCodes, normal_recovery_code

PEPPER = "test-key-pepper"


@pytest.fixture
def codes():
    return RecoveryCodes(PEPPER)


@pytest.fixture
def issued(codes):
    return codes.new_set()


def test_ten_distinct_codes_of_the_unambiguous_alphabet(issued):
    shown, hashes = issued
    assert len(shown) == 10 == len(set(shown)) == len(hashes)
    for code in shown:
        assert re.fullmatch(r"[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}", code)
    assert not set("ilou") & set(ALPHABET)
    assert len(ALPHABET) == 32 and math.log2(len(ALPHABET)) * 10 >= 50


def test_codes_are_random(codes):
    drawn = [codes.new_code() for _ in range(500)]
    assert len(set(drawn)) == 500
    characters = "".join(drawn).replace("-", "")
    assert set(characters) == set(ALPHABET)  # 5,000 draws reach every character


def test_only_hashes_are_stored_and_each_has_a_salt_of_its_own(codes, issued):
    shown, hashes = issued
    for code, stored in zip(shown, hashes):
        assert code.replace("-", "") not in stored and code not in stored
        assert re.fullmatch(r"v1:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]{43}", stored)
    assert len({stored.split(":")[1] for stored in hashes}) == 10
    assert codes.hash(shown[0]) != codes.hash(shown[0])  # a new salt each time


def test_each_code_matches_its_own_entry(codes, issued):
    shown, hashes = issued
    assert [codes.match(code, hashes) for code in shown] == list(range(10))


@pytest.mark.parametrize("typed", ["{a}-{b}", "{a}{b}", "{A}-{B}", " {a} {b} ", "{a} - {b}", "{A}\u2013{B}",
                                   "{a}\t{b}\n"])
def test_case_spaces_and_dashes_do_not_matter(codes, issued, typed):
    shown, hashes = issued
    code = shown[3]
    a, b = code.split("-")
    assert codes.match(typed.format(a=a, b=b, A=a.upper(), B=b.upper()), hashes) == 3


def test_look_alike_letters_read_as_the_digits(codes):
    hashes = [codes.hash("01abc-d1e0f")]
    assert codes.match("OIABC-DLEOF", hashes) == 0
    assert codes.match("oiabc-dleof", hashes) == 0


def test_a_used_code_never_matches_again(codes, issued):
    shown, hashes = issued
    index = codes.match(shown[5], hashes)
    hashes[index] = None  # what the caller stores once it is used
    assert codes.match(shown[5], hashes) is None
    assert codes.match(shown[6], hashes) == 6


def test_a_code_of_another_set_or_another_pepper_does_not_match(codes, issued):
    shown, hashes = issued
    other_shown, other_hashes = codes.new_set()
    assert all(codes.match(code, hashes) is None for code in other_shown if code not in shown)
    assert all(RecoveryCodes("another-pepper").match(code, hashes) is None for code in shown)


@pytest.mark.parametrize("typed", ["", None, "abcde", "abcde-fghjk-m", "abcde-fghj", "abcde_fghjk", "abcde-fghju",
                                   "abcde-fghj!", "ａｂｃｄｅ-ｆｇｈｊｋ", "abcde\x00fghjk"])
def test_what_cannot_be_a_code_is_refused(codes, issued, typed):
    assert normal_recovery_code(typed) is None
    assert codes.match(typed, issued[1]) is None


def test_entries_that_are_not_stored_hashes_are_passed_over(codes, issued):
    shown, hashes = issued
    assert codes.match(shown[1], ["", "v2:x:y", "v1:only-two", "v1:!!:??", None, hashes[1]]) == 5


def test_no_pepper_is_refused():
    with pytest.raises(ValueError):
        RecoveryCodes("")


def test_it_offers_what_its_interface_declares(codes):
    assert verifyObject(IRecoveryCodes, codes)
