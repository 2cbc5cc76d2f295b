"""Which IP addresses a webhook may be sent to: public ones only, IPv4 addresses hidden inside IPv6 included.

An IPv6 address can carry an IPv4 address that the packets end up at (a NAT64 translator, a 6to4 or Teredo
relay, or the host's own stack for the mapped and compatible forms); `64:ff9b::10.0.0.1` reaches 10.0.0.1.
Such an address is judged by what it embeds as well as by itself.
"""

import ipaddress

_MAPPED = ipaddress.ip_network("::ffff:0:0/96")            # ::ffff:a.b.c.d (RFC 4291)
_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")      # ::ffff:0:a.b.c.d (SIIT, RFC 2765)
_COMPATIBLE = ipaddress.ip_network("::/96")                # ::a.b.c.d (deprecated, RFC 4291)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")              # well-known NAT64 prefix (RFC 6052)
# The local-use NAT64 prefix (RFC 8215) is the operator's own translator, its layout the operator's choice, and
# it is not globally reachable: refused whatever it embeds.
_LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")
# Only notations of the IPv4 address they carry, connected to as that address: judged by it alone (Python counts
# ::ffff:0:0/96 itself as private).
_NOTATIONS = (_MAPPED, _TRANSLATED)


def _last_32_bits(ip):
    return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)


def embedded_ipv4(ip):
    """The IPv4 addresses an IPv6 address carries (empty for one that carries none)."""
    if any(ip in network for network in (_MAPPED, _TRANSLATED, _COMPATIBLE, _NAT64, _LOCAL_NAT64)):
        return [_last_32_bits(ip)]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)  # (server, client): the relay and the host the packets are for
    return []


def _destination(ip):
    """The address a connection is made to: for a mere notation of an IPv4 address, that IPv4 address."""
    if isinstance(ip, ipaddress.IPv6Address) and any(ip in network for network in _NOTATIONS):
        return _last_32_bits(ip)
    return ip


def judged(address):
    """The addresses whose rule decides `address` (text): where it connects, and any IPv4 address it embeds."""
    ip = ipaddress.ip_address(address)
    destination = _destination(ip)
    if destination is not ip:
        return [destination]
    return [ip, *embedded_ipv4(ip)] if isinstance(ip, ipaddress.IPv6Address) else [ip]


def is_private(address):
    """True unless `address` and every IPv4 address it embeds are public unicast addresses."""
    if ipaddress.ip_address(address) in _LOCAL_NAT64:
        return True
    return any(not ip.is_global or ip.is_multicast for ip in judged(address))


def is_loopback(address):
    """Whether a connection to `address` stays on this host (plain http is allowed there in development)."""
    return _destination(ipaddress.ip_address(address)).is_loopback
