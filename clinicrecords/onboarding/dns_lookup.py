"""Looking up a domain's verification record with dnspython, and naming the outcome.

Resolvers come from the setting `verification.nameservers` (space-separated `host` or `host:port`, IPv6 as
`[addr]:port`), which the environment variable CLINICRECORDS_DNS_NAMESERVERS overrides; the system's
resolver when both are empty. Nothing is cached between lookups: each check asks again.
"""

import ipaddress
import socket

import dns.exception
import dns.name
import dns.nameserver
import dns.rdatatype
import dns.resolver

from clinicrecords.onboarding import schedule
from clinicrecords.settings import ENV_DNS_NAMESERVERS as ENV_NAMESERVERS  # noqa: F401  (tests set it)
from clinicrecords.settings import VerificationSettings


class NameserverError(ValueError):
    """The nameserver setting cannot be read; the application does not start with it."""


def parse_nameservers(text):
    """[(host, port)] from "192.0.2.1 192.0.2.2:5353 [2001:db8::1]:53 2001:db8::2 ns.example"."""
    servers = []
    for item in (text or "").split():
        host, port = _split_port(item)
        if not host:
            raise NameserverError(f"verification.nameservers: no host in {item!r}")
        servers.append((host, port))
    return servers


def _split_port(item):
    if item.startswith("["):
        host, _, rest = item[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else rest
        return host, _port(item, port or "53")
    if item.count(":") == 1:
        host, port = item.split(":")
        return host, _port(item, port)
    return item, 53  # a bare IPv6 address has several colons and no port


def _port(item, text):
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise NameserverError(f"verification.nameservers: bad port in {item!r}")
    return int(text)


# The application's TxtLookup, kept in the registry by clinicrecords.onboarding.
TXT_LOOKUP = "onboarding.txt_lookup"


class TxtLookup:
    """Asks the configured resolvers for a TXT record and says what came back (a `schedule` result)."""

    def __init__(self, nameservers=(), timeout=VerificationSettings.dns_timeout_seconds):
        self.nameservers = list(nameservers)
        self.timeout = timeout

    @classmethod
    def from_settings(cls, settings):
        """From the `verification.*` settings (a VerificationSettings; the environment variable already read)."""
        return cls(parse_nameservers(settings.nameservers), settings.dns_timeout_seconds)

    def _resolver(self):
        resolver = dns.resolver.Resolver(configure=not self.nameservers)
        if self.nameservers:
            resolver.nameservers = [dns.nameserver.Do53Nameserver(_address(host), port)
                                    for host, port in self.nameservers]
        resolver.timeout = resolver.lifetime = self.timeout
        return resolver

    def check(self, host, expected):
        """FOUND when one TXT record at `host` equals `expected` (its strings joined, as TXT splits long
        values); otherwise why not."""
        try:
            answer = self._resolver().resolve(dns.name.from_text(host), dns.rdatatype.TXT, search=False,
                                              raise_on_no_answer=False)
        except dns.resolver.NXDOMAIN:
            return schedule.NXDOMAIN
        except dns.exception.Timeout:
            return schedule.TIMEOUT
        except dns.resolver.NoNameservers as exc:
            return schedule.SERVFAIL if _any_servfail(exc) else schedule.DNS_ERROR
        except (dns.exception.DNSException, OSError):
            return schedule.DNS_ERROR
        if answer.rrset is None:
            return schedule.NO_TXT
        values = {b"".join(rdata.strings).decode("utf-8", "replace").strip() for rdata in answer.rrset}
        return schedule.FOUND if expected in values else schedule.WRONG_VALUE


def _any_servfail(exc):
    return any(error[3] == "SERVFAIL" for error in exc.kwargs.get("errors", ()))


def _address(host):
    """An IP address for a configured resolver; a host name is resolved by the system each time."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return socket.getaddrinfo(host, 53, proto=socket.IPPROTO_UDP)[0][4][0]
