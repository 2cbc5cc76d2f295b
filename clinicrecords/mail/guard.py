"""Defence in depth: a message never carries an API key, a webhook signing secret, a password or a record.

Callers pass plain values (text, numbers, lists of them), never records. A value whose name says it is a
password or a secret is refused, and so is a rendered message that contains anything shaped like an API key
(`ehr_live_`, `ehr_test_`) or a signing secret (`whsec_`), or the value of one of the service's own secrets.
Every link must start with the portal's public address: the single-use tokens in those links are the only
bearer values a message may hold.
"""

import re

from clinicrecords.mail.interfaces import MailRefused, MailWithheld

SECRET_SHAPES = re.compile(r"ehr_(?:live|test)_|whsec_", re.IGNORECASE)
SECRET_NAMES = re.compile(r"password|passwd|secret|api_?key|pepper", re.IGNORECASE)
LINK = re.compile(r"""https?://[^\s<>"']+""", re.IGNORECASE)
PLAIN = (str, int, float, bool, type(None))


def check_values(values):
    for name, value in values.items():
        if SECRET_NAMES.search(name):
            raise MailRefused(f"mail value {name!r}: a message never carries a password or a secret")
        items = value if isinstance(value, (list, tuple)) else [value]
        if not all(isinstance(item, PLAIN) for item in items):
            raise MailRefused(f"mail value {name!r}: only text and numbers (or lists of them), never a record")


def check_rendered(parts, secrets, links_base):
    """`parts`: the subject and the bodies as rendered. Refuses what must never be mailed (MailWithheld)."""
    for part in parts:
        if SECRET_SHAPES.search(part):
            raise MailWithheld("the message contains something shaped like an API key or a webhook signing secret")
        if any(secret in part for secret in secrets):
            raise MailWithheld("the message contains one of the service's secrets")
        for link in LINK.findall(part):
            if not (link == links_base or link.startswith(links_base + "/") or link.startswith(links_base + "?")):
                raise MailWithheld(f"a link in the message does not start with the portal's address {links_base}")
