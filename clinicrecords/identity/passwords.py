"""Password rules and hashing (argon2id; argon2-cffi's defaults, RFC 9106's low-memory profile, unless the
settings name lighter parameters: the test suite's, never production's).

Rules (NIST SP 800-63B): 12 to 128 characters, any characters; refused when it is one of the commonly used
passwords shipped with the package, contains the email or its name part, is one character repeated, or is on
the lists of breached passwords the identity context ships (ASVS 2.1.7; `identity.services.
is_breached_password`, docs/security.md).
"""

from importlib.resources import files

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from clinicrecords.identity.breached import is_breached_password

MIN_LENGTH = 12
MAX_LENGTH = 128
BREACHED = "Choose a different password: this one is known from data breaches, and attackers try those first"

# The `portal.argon2.*` settings and the PasswordHasher arguments they set. Left out, argon2-cffi's defaults
# apply (time cost 3, 64 MiB, 4 lanes: about 0.2 s of CPU per hash, the point of it).
_PARAMETERS = {"argon2_time_cost": "time_cost", "argon2_memory_cost_kib": "memory_cost",
               "argon2_parallelism": "parallelism"}


class Passwords:
    """Hashes and verifies portal passwords with one set of argon2id parameters."""

    def __init__(self, hasher=None):
        self._hasher = hasher or PasswordHasher()
        # Verified when no account has the email, so an unknown email costs the same time as a wrong password.
        self._dummy_hash = self._hasher.hash("not a password anyone has: unknown account")

    @classmethod
    def from_settings(cls, settings):
        """From the `portal.*` settings (a PortalSettings)."""
        chosen = {argument: getattr(settings, name) for name, argument in _PARAMETERS.items()
                  if getattr(settings, name)}
        return cls(PasswordHasher(**chosen))

    @property
    def parameters(self):
        return self._hasher.time_cost, self._hasher.memory_cost, self._hasher.parallelism

    def hash(self, password):
        return self._hasher.hash(password)

    def verify(self, stored_hash, password):
        """True when it matches. With no stored hash (unknown email) it does the same work and answers False."""
        try:
            return self._hasher.verify(stored_hash or self._dummy_hash, password) and stored_hash is not None
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored_hash):
        """True when the hash was made with other parameters than these (it is replaced at the next log-in)."""
        return self._hasher.check_needs_rehash(stored_hash)


def _common():
    text = files("clinicrecords.identity").joinpath("data/common-passwords.txt").read_text()
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
    if is_breached_password(password):
        return BREACHED
    return None
