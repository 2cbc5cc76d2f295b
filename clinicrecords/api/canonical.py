"""One text per meaning of a JSON value, and its SHA-256: what "the same content" is for an Idempotency-Key
(the same request: `api/idempotency.py`) and for a client_reference (the same submission: the review queue).

Members sorted, no whitespace, numbers by value (1, 1.0 and 1.00 are one number, and so are 2.5 and 2.50),
strings as JSON writes them with every non-ASCII character escaped; any other value (a uuid, a date) as its
text. Both hashes are stored (an answer for 24 hours, a submission's `content_hash` for good), so this text
must never change: for the JSON types a submission holds it is exactly what
`json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)` writes, which is how content hashes
were written before the two shared it.
"""

import decimal
import hashlib
from json.encoder import encode_basestring_ascii as _quoted


def _number(value):
    number = decimal.Decimal(str(value) if isinstance(value, float) else value)
    if number == number.to_integral_value():
        return str(int(number))
    return format(number.normalize(), "f")


_CONSTANTS = {None: "null", True: "true", False: "false"}


def canonical_json(value):
    # Every POST with an Idempotency-Key and every send to the review queue walks its body here: strings are
    # quoted by json's own C quoting (what json.dumps does for a string, without its layers).
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_quoted(str(name))}:{canonical_json(value[name])}" for name in sorted(value)) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if value is None or isinstance(value, bool):
        return _CONSTANTS[value]
    if isinstance(value, (int, float, decimal.Decimal)):
        return _number(value)
    return _quoted(str(value))


def canonical_hash(value):
    """The SHA-256 of the canonical text, in hex."""
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def digest(*parts):
    """The SHA-256 of several byte strings, each length-prefixed so no two sequences of parts run together."""
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(len(part).to_bytes(8, "big"))
        hashed.update(part)
    return hashed.digest()
