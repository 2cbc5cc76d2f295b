"""What other contexts use to send mail: `request.find_service(IMail).send(...)` inside their own transaction."""

from dataclasses import dataclass

from zope.interface import Interface

from clinicrecords.errors import InvalidInput

__all__ = ["IMail", "MailRefused", "QueuedMail"]


class MailRefused(InvalidInput):
    """A message the service will not send (a bad address, an unknown template, a value that must never be
    mailed). Nothing was written."""


@dataclass(frozen=True)
class QueuedMail:
    id: str             # the outbox row
    message_id: str     # the Message-ID header, as the recipient's mail system shows it
    to: str


class IMail(Interface):
    def send(template, to, /, *, regarding, unsubscribe=None, **values):
        """Render `template` (clinicrecords/mail/templates/<template>/: subject.txt, body.txt, body.html) with
        `values` and queue it for `to` in the caller's transaction: the message leaves only once that
        transaction commits, and is retried until sent. `regarding` names the workspace or clinic the
        message is about (every message says it). Links in `values` are built with `link(path, **query)`.
        `unsubscribe`, a link built so, is where the recipient stops messages of this kind (a notification's
        settings page): it goes in the `List-Unsubscribe` header (RFC 2369), which mail programs offer as a
        button; a security notice, which no one can turn off, has none.
        Returns a `QueuedMail`; raises `MailRefused` and writes nothing when the message cannot be sent."""

    def link(path, **query):
        """An absolute link to a portal page (`/invitations`, token=...) on the portal's public address."""
