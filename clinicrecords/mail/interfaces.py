"""What other contexts use to send mail: `request.find_service(IMail).send(...)` inside their own transaction."""

from dataclasses import dataclass

from zope.interface import Interface

from clinicrecords.errors import InvalidInput

__all__ = ["IMail", "MailRefused", "MailWithheld", "QueuedMail"]


class MailRefused(InvalidInput):
    """A message the service will not send (a bad address, an unknown template, a value that must never be
    mailed). Nothing was written."""


class MailWithheld(MailRefused):
    """A message the guard refused as rendered (something shaped like a key, one of the service's secrets, a
    link off the portal): `IMail.send` writes nothing and says so in its answer (`QueuedMail.withheld`) rather
    than raising, so the change that would have sent it completes."""


@dataclass(frozen=True)
class QueuedMail:
    id: str | None          # the outbox row (None: withheld)
    message_id: str | None  # the Message-ID header, as the recipient's mail system shows it (None: withheld)
    to: str
    withheld: str | None = None  # why the guard refused the message, when it did: nothing was written


class IMail(Interface):
    def send(template, to, /, *, regarding, unsubscribe=None, **values):
        """Render `template` (clinicrecords/mail/templates/<template>/: subject.txt, body.txt, body.html) with
        `values` and queue it for `to` in the caller's transaction: the message leaves only once that
        transaction commits, and is retried until sent. `regarding` names the workspace or clinic the
        message is about (every message says it). Links in `values` are built with `link(path, **query)`.
        `unsubscribe`, a link built so, is where the recipient stops messages of this kind (a notification's
        settings page): it goes in the `List-Unsubscribe` header (RFC 2369), which mail programs offer as a
        button; a security notice, which no one can turn off, has none.
        Returns a `QueuedMail`; raises `MailRefused` and writes nothing when the message cannot be sent (a bad
        address, an unknown template, a value that is a record or named as a secret). A message the guard refuses
        as rendered (a value holding a link off the portal or a key's shape) is not an error of the caller's: it
        writes nothing, is logged with the rule it broke, and the answer's `withheld` says why (the portal's page
        tells the person that an email could not be sent)."""

    def link(path, **query):
        """An absolute link to a portal page (`/invitations`, token=...) on the portal's public address."""
