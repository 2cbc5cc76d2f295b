"""Which resolvers the lookups ask: the setting, the environment variable over it, or the system's."""

import pytest

from clinicrecords.onboarding.dns_lookup import (ENV_NAMESERVERS, NameserverError, TxtLookup,
                                                 parse_nameservers)
from clinicrecords.settings import VerificationSettings, read_section


def test_hosts_and_ports():
    text = "192.0.2.1 192.0.2.2:5353  [2001:db8::1]:5300 2001:db8::2 [2001:db8::3] ns.example"
    assert parse_nameservers(text) == [
        ("192.0.2.1", 53), ("192.0.2.2", 5353), ("2001:db8::1", 5300), ("2001:db8::2", 53),
        ("2001:db8::3", 53), ("ns.example", 53)]
    assert parse_nameservers("") == parse_nameservers("  ") == parse_nameservers(None) == []


@pytest.mark.parametrize("text", ["192.0.2.1:", "192.0.2.1:dns", "192.0.2.1:70000", ":53", "[2001:db8::1]:x"])
def test_bad_entries_stop_start_up(text):
    with pytest.raises(NameserverError):
        parse_nameservers(text)


def test_the_environment_variable_overrides_the_setting():
    def lookup_from(settings, environ):
        return TxtLookup.from_settings(read_section(VerificationSettings, settings, environ))

    settings = {"verification.nameservers": "192.0.2.1", "verification.dns_timeout_seconds": "2.5"}
    assert lookup_from(settings, environ={}).nameservers == [("192.0.2.1", 53)]
    lookup = lookup_from(settings, environ={ENV_NAMESERVERS: "127.0.0.1:5353"})
    assert (lookup.nameservers, lookup.timeout) == ([("127.0.0.1", 5353)], 2.5)
    assert lookup_from({}, environ={}).nameservers == []  # the system resolver


def test_the_application_reads_the_environment_variable_at_start(make_app, monkeypatch):
    monkeypatch.setenv(ENV_NAMESERVERS, "127.0.0.1:5399")
    registry = make_app(**{"verification.nameservers": "192.0.2.1"}).registry
    assert registry["onboarding.txt_lookup"].nameservers == [("127.0.0.1", 5399)]
