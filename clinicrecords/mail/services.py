"""The mail service (`IMail`): other contexts find it with `request.find_service(IMail)`.

`send` composes the message (refusing what must never be mailed), writes it to the outbox in the caller's
session, and has its send task queued once the caller's transaction commits (`request.enqueue`): a rolled-back
transaction sends nothing, and a message whose task is lost is found again by the sweep.
"""

import logging
import re

from zope.interface import implementer

from clinicrecords.mail import guard, messages, outbox
from clinicrecords.mail.interfaces import IMail, MailRefused, MailWithheld, QueuedMail
from clinicrecords.mail.settings import mail_settings
from clinicrecords.mail.tasks import queue_sends

__all__ = ["LINK_OR_KEY", "NAME_REFUSED", "MailService", "address_problem", "holds_link_or_key", "mail_in",
           "mail_service_factory", "send_test_message", "where_mail_goes"]

log = logging.getLogger(__name__)

# What the operator's test message says it is about: it concerns no workspace or clinic.
TEST_REGARDING = "a test of this service's mail"


@implementer(IMail)
class MailService:
    def __init__(self, db, settings, enqueue, withheld=None):
        self.db = db
        self.settings = settings
        self.enqueue = enqueue
        self.withheld = withheld  # told of each message the guard withholds (the request's state)

    def send(self, template, to, /, *, regarding, unsubscribe=None, **values):
        try:
            composed = messages.compose(self.settings, template, to, regarding, values, unsubscribe=unsubscribe)
        except MailWithheld as refused:
            # Never the values (they may hold what was refused): the template and the rule.
            log.warning("mail %r withheld: %s", template, refused)
            if self.withheld is not None:
                self.withheld(template, str(refused))
            return QueuedMail(None, None, messages.recipient_address(to), withheld=str(refused))
        row = outbox.add(self.db, template, composed)
        self.enqueue(queue_sends, [row.id])
        return QueuedMail(str(row.id), composed.message_id, composed.recipient)

    def link(self, path, **query):
        return messages.link(self.settings.links_base, path, **query)


# What a name people type (a workspace's, an organization's, a clinic's, a key's, a passkey's) may not hold: a
# web address or anything shaped like a key or a signing secret. Names go into messages, and the guard, which
# judges the whole rendered message on purpose, refuses one holding them: the name is refused where it is typed.
LINK_OR_KEY = re.compile(r"://|\bwww\.|" + guard.SECRET_SHAPES.pattern, re.IGNORECASE)
NAME_REFUSED = "cannot contain a web address (://, www.) or text shaped like an API key or a signing secret"


def holds_link_or_key(text):
    """True when `text` holds what a name may not (`LINK_OR_KEY`): the form answers with its `NAME_REFUSED`."""
    return bool(LINK_OR_KEY.search(text or ""))


def address_problem(text):
    """None when the mail service would send to `text` exactly as typed, else why not: the forms that take an
    address to be mailed ask this first, so what they accept is what the mailer accepts (one parser)."""
    try:
        messages.recipient_address(text)
    except MailRefused as refused:
        return str(refused)
    return None


def mail_service_factory(context, request):
    return MailService(request.db, mail_settings(request.registry), request.enqueue,
                       withheld=lambda template, reason: request.state.mail_withheld.append(template))


def mail_in(registry, db, enqueue):
    """The `IMail` writing to the outbox in `db`'s transaction, its sends queued by `enqueue` after that commit:
    for a listener told of a moment outside a request (`clinicrecords.publishing.Place`)."""
    return MailService(db, mail_settings(registry), enqueue)


def send_test_message(request, to):
    """`mail test --to EMAIL`: one test message through the outbox, as any other."""
    queued = request.find_service(IMail).send("test", to, regarding=TEST_REGARDING)
    return {"to": queued.to, "queued": True, "message_id": queued.message_id}


def where_mail_goes(registry):
    """One line for the server's start-up: the SMTP server the mail is sent through, or the folder each message
    is written to as a file (development, no SMTP server set)."""
    settings = mail_settings(registry)
    if settings.smtp is None:
        return (f"Mail: each message is written as a file under {settings.eml_directory}/ (set "
                f"CLINICRECORDS_SMTP_URL to send through an SMTP server)")
    return f"Mail: sent through the SMTP server {settings.smtp.host}:{settings.smtp.port}"
