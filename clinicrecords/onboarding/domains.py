"""Domain names a workspace may verify, the TXT record's host, and its value."""

import ipaddress
import re
import secrets
import urllib.parse

import idna

from clinicrecords.errors import InvalidInput

TXT_LABEL = "_clinicrecords-verify"
TXT_VALUE_PREFIX = "clinicrecords-verify="
TOKEN_BYTES = 24  # 192 bits of randomness
MAX_NAME = 253
# The TXT host must itself be a valid name, so the domain leaves room for the label and its dot.
MAX_DOMAIN = MAX_NAME - len(TXT_LABEL) - 1
_NOT_A_NAME = re.compile(r"[\s/:@?#\\\[\]]")


class InvalidDomain(InvalidInput):
    """The text is not a domain name a workspace can verify."""


def normalize_domain(text):
    """The ASCII (A-label) form of a domain the owner entered, lower case, without the root dot.

    Internationalized names go through IDNA 2008 with the UTS 46 mapping (what browsers do), so
    "Bücher.Example" and "xn--bcher-kva.example" are the same domain. Refused: IP addresses, single labels,
    a scheme, port, path or anything after the name, an all-numeric top-level label, underscores.
    """
    text = (text or "").strip()
    if not text:
        raise InvalidDomain("a domain name is required, e.g. example.com")
    if _NOT_A_NAME.search(text):
        raise InvalidDomain(
            f"{text!r} is not a domain name: give the name only, without scheme, port or path")
    if text.endswith("."):
        text = text[:-1]
    if _is_ip_address(text):
        raise InvalidDomain(f"{text!r} is an IP address; verification needs a domain name")
    try:
        ascii_name = idna.encode(text, uts46=True, std3_rules=True).decode("ascii")
    except idna.IDNAError as exc:
        raise InvalidDomain(f"{text!r} is not a valid domain name ({exc})") from None
    labels = ascii_name.split(".")
    if not all(labels):
        raise InvalidDomain(f"{text!r} is not a valid domain name (an empty label)")
    if len(labels) < 2:
        raise InvalidDomain(f"{text!r} is a single label; give a registered domain such as example.com")
    if labels[-1].isdigit():
        raise InvalidDomain(f"{text!r} is not a domain name: its last label is a number")
    if len(ascii_name) > MAX_DOMAIN:
        raise InvalidDomain(f"{text!r} is too long: at most {MAX_DOMAIN} characters in its ASCII form")
    return ascii_name


def _is_ip_address(text):
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def txt_host(domain):
    """The record's fully qualified name: the label before the domain exactly as entered (a subdomain
    entered gets its own record: `_clinicrecords-verify.api.example.com`)."""
    return f"{TXT_LABEL}.{domain}"


def new_txt_value():
    """A fresh value for one workspace and one domain; stored with them, never reused for another."""
    return TXT_VALUE_PREFIX + secrets.token_hex(TOKEN_BYTES)


def website_host(website):
    """The ASCII form of the host a profile's website names (as `normalize_domain` gives it), or None."""
    try:
        return normalize_domain(urllib.parse.urlsplit(website or "").hostname or "")
    except (InvalidDomain, ValueError):
        return None


def website_on_domain(website, domain):
    """Whether the website is on `domain` (an ASCII domain) or one of its subdomains. A profile whose website
    is elsewhere is allowed, but its owner is warned: the reviewer will ask how the two are related."""
    host = website_host(website)
    return host is not None and (host == domain or host.endswith("." + domain))
