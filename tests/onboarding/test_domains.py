"""Which domain names a workspace may claim, and the TXT record it publishes."""

import re

import pytest

from clinicrecords.onboarding.domains import InvalidDomain, new_txt_value, normalize_domain, txt_host


@pytest.mark.parametrize("entered, stored", [
    ("example.com", "example.com"),
    ("  Example.COM  ", "example.com"),
    ("example.com.", "example.com"),  # the root dot of a fully qualified name
    ("api.eu.example.co.uk", "api.eu.example.co.uk"),
    ("Bücher.example", "xn--bcher-kva.example"),  # IDNA 2008 with the UTS 46 mapping
    ("xn--bcher-kva.example", "xn--bcher-kva.example"),
    ("ｅｘａｍｐｌｅ.com", "example.com"),  # full-width letters map to ASCII, as in browsers
    ("a-b.example", "a-b.example"),
    ("example.xn--p1ai", "example.xn--p1ai"),
])
def test_accepted_domains(entered, stored):
    assert normalize_domain(entered) == stored


@pytest.mark.parametrize("entered", [
    "", "   ", "localhost", "com", "192.0.2.1", "2001:db8::1", "[2001:db8::1]", "10.0.0.300",
    "1.2.3.4.5", "https://example.com", "example.com/path", "example.com:443", "user@example.com",
    "example.com foo", "example.com\nevil.example", "exa mple.com", "example..com", ".example.com",
    "example.com..",
    "-example.com", "example-.com", "_dmarc.example.com", "ex_ample.com", "example.com?x", "example.com#x",
    "a" * 64 + ".com", ".".join(["a" * 60] * 4) + ".com", "example.123", "☃.example\u200d",
])
def test_refused_domains(entered):
    with pytest.raises(InvalidDomain):
        normalize_domain(entered)


def test_refusals_name_the_problem():
    with pytest.raises(InvalidDomain, match="IP address"):
        normalize_domain("192.0.2.1")
    with pytest.raises(InvalidDomain, match="without scheme, port or path"):
        normalize_domain("https://example.com/")


def test_txt_host_is_the_label_before_the_domain_as_entered():
    assert txt_host("example.com") == "_clinicrecords-verify.example.com"
    assert txt_host("api.example.com") == "_clinicrecords-verify.api.example.com"


def test_txt_values_carry_at_least_128_random_bits_and_never_repeat():
    values = {new_txt_value() for _ in range(1000)}
    assert len(values) == 1000
    for value in values:
        token = re.fullmatch(r"clinicrecords-verify=([0-9a-f]+)", value).group(1)
        assert len(token) * 4 >= 128
