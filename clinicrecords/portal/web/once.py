"""One-time reads: every successful portal POST answers with a redirect (POST/Redirect/GET), so a reload never
posts again. What the POST's answer would have shown once (a new key's secret, a signing secret, an
invitation link, a test's result, a notice) is stashed for the page it redirects to:

- sealed (AES-256-GCM) under a key derived from the session's cookie token, which the database never holds
  (it keeps the token's SHA-256 only): a copy of the table opens nothing, and no other session can read it;
- bound to the session (its row names the session and goes with it), and short-lived (`LIFETIME`);
- read once: the page deletes it as it reads it, in one statement, so a reload (or a second tab) finds it gone
  and says the secret was shown once, without the secret.

`see_other_once(request, kind, value, *segments, **query)` stashes and redirects (the kind and the read's id
ride in the `once` query parameter, `once=key.<uuid>`); the target page asks `shown_once(request, kind)`.
"""

import datetime
import hashlib
import hmac
import json
import os
import uuid
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from sqlalchemy import delete, insert
from zope.interface import implementer

from clinicrecords.clock import now
from clinicrecords.portal.web.forms import see_other
from clinicrecords.portal.web.interfaces import IOneTimeReads
from clinicrecords.portal.web.models import OneTimeRead

# Long enough for a slow redirect, short enough that a stash left unread (a closed tab) soon goes.
LIFETIME = datetime.timedelta(minutes=10)
PARAMETER = "once"
NONCE_BYTES = 12
_PURPOSE = b"clinicrecords portal one-time read"


@implementer(IOneTimeReads)
class OneTimeReads:
    def __init__(self, db, session_id, session_token, clock=now):
        self.db = db
        self.session_id = session_id
        self.session_token = session_token
        self.clock = clock

    def _aead(self):
        if self.session_id is None or not self.session_token:
            raise RuntimeError("a one-time read needs a signed-in session")
        return AESGCM(hmac.new(self.session_token.encode(), _PURPOSE, hashlib.sha256).digest())

    @staticmethod
    def _bound(read_id, kind):
        return read_id.bytes + kind.encode()

    def put(self, kind, value):
        """Stash a JSON-able `value` for this session; returns the read's id (a uuid)."""
        read_id = uuid.uuid4()
        nonce = os.urandom(NONCE_BYTES)
        sealed = nonce + self._aead().encrypt(nonce, json.dumps(value).encode(), self._bound(read_id, kind))
        self.db.execute(insert(OneTimeRead).values(id=read_id, session_id=self.session_id, kind=kind,
                                                   sealed=sealed, expires_at=self.clock() + LIFETIME))
        return read_id

    def take(self, kind, read_id):
        """The value stashed as `kind` under `read_id` by this session, deleted as it is read; None when it was
        read already, expired, or is another session's or another kind's."""
        if self.session_id is None or not self.session_token:
            return None
        sealed = self.db.scalar(delete(OneTimeRead).where(
            OneTimeRead.id == read_id, OneTimeRead.session_id == self.session_id, OneTimeRead.kind == kind,
            OneTimeRead.expires_at > self.clock()).returning(OneTimeRead.sealed))
        if sealed is None:
            return None
        try:
            opened = self._aead().decrypt(sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], self._bound(read_id, kind))
        except InvalidTag:  # the session's token changed since (a password change starts a new session)
            return None
        return json.loads(opened)


def prune(db, now):
    """Stashes nobody read in time (a closed tab); `clinicrecords.portal.web.tasks` runs it."""
    return db.execute(delete(OneTimeRead).where(OneTimeRead.expires_at <= now)).rowcount


def one_time_reads_factory(cookie):
    def factory(context, request):
        identity = request.identity
        return OneTimeReads(request.db, identity.session_id if identity is not None else None,
                            cookie.read(request))

    return factory


@dataclass(frozen=True)
class Shown:
    """What a page reached by a POST's redirect shows once. `asked`: the page was reached from such a
    redirect; `value`: the stash, or None when it was read before (a reload) or never existed."""

    asked: bool
    value: object = None

    @property
    def gone(self):
        """Asked for, but already read: the page says it was shown once."""
        return self.asked and self.value is None


def see_other_once(request, kind, value, *segments, **query):
    """Post/Redirect/Get for an answer that shows something once: stash it, then redirect to the page that
    shows it."""
    read_id = request.find_service(IOneTimeReads).put(kind, value)
    return see_other(request, *segments, **{**query, PARAMETER: f"{kind}.{read_id}"})


def shown_once(request, kind):
    """The value the POST before this page stashed as `kind` (read and deleted now), as a `Shown`; a page
    reached from a redirect for another kind (or none) asked for nothing of this kind."""
    asked_kind, _, text = request.GET.get(PARAMETER, "").rpartition(".")
    if asked_kind != kind:
        return Shown(False)
    try:
        read_id = uuid.UUID(text)
    except ValueError:
        return Shown(True)
    return Shown(True, request.find_service(IOneTimeReads).take(kind, read_id))
