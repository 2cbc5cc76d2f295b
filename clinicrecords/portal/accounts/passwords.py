"""Password rules and hashing (argon2id, argon2-cffi's defaults: RFC 9106's low-memory profile).

Rules (NIST SP 800-63B): 12 to 128 characters, any characters; refused when it is one of the commonly used
passwords shipped with the package, contains the email or its name part, or is one character repeated.
"""

from importlib.resources import files

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_LENGTH = 12
MAX_LENGTH = 128

_hasher = PasswordHasher()
# Verified when no account has the email, so an unknown email costs the same time as a wrong password.
_DUMMY_HASH = _hasher.hash("not a password anyone has: unknown account")


def _common():
    text = files("clinicrecords.portal.accounts").joinpath("data/common-passwords.txt").read_text()
    return frozenset(line.strip().lower() for line in text.splitlines() if line.strip())


COMMON_PASSWORDS = _common()


def password_problem(password, email):
    """What is wrong with a new password, in words for the form, or None."""
    if len(password) < MIN_LENGTH:
        return f"Enter a password of at least {MIN_LENGTH} characters"
    if len(password) > MAX_LENGTH:
        return f"Enter a password of at most {MAX_LENGTH} characters"
    lowered = password.lower()
    email = (email or "").strip().lower()
    name = email.split("@", 1)[0]
    if email and (email in lowered or (len(name) >= 4 and name in lowered)):
        return "Choose a password that does not contain your email address"
    if lowered in COMMON_PASSWORDS or lowered.rstrip("0123456789!") in COMMON_PASSWORDS:
        return "Choose a less common password: this one is on lists attackers try first"
    if len(set(password)) <= 2:
        return "Choose a password that is not one or two characters repeated"
    return None


def hash_password(password):
    return _hasher.hash(password)


def verify_password(stored_hash, password):
    """True when it matches. With no stored hash (unknown email) it does the same work and answers False."""
    try:
        return _hasher.verify(stored_hash or _DUMMY_HASH, password) and stored_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored_hash):
    return _hasher.check_needs_rehash(stored_hash)
