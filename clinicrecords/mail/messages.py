"""Turning a template and its values into the message that goes on the wire.

Each template is a folder under `templates/` with `subject.txt`, `body.txt` (the plain-text part every
message has) and `body.html` (its HTML alternative), extending `_base/`, which names the workspace or clinic
the message is about. Jinja2 escapes the HTML part only; an undefined value is an error, not an empty string.
The headers are set through the email library's SMTP policy, which refuses a line break in any header, so
nothing a value holds can add a header; the subject is also folded to one line first. A header is never folded
before its first word (`MailPolicy`): that policy would put a 70-to-77-character subject whole on the next line,
and the subject then reads with a leading space.
"""

import email.errors
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import format_datetime, make_msgid
from urllib.parse import urlencode

import idna
import jinja2

from clinicrecords import clock
from clinicrecords.mail import guard
from clinicrecords.mail.interfaces import MailRefused

MAX_ADDRESS = 254
MAX_LOCAL_PART = 64
NOT_ONE_ADDRESS = "the recipient must be one email address such as name@example.org"
MAX_SUBJECT = 200
LINE = 78  # RFC 5322 2.1.1: a line SHOULD be at most 78 characters


class MailPolicy(EmailPolicy):
    """The SMTP policy (CRLF, lines of 78), except that a header keeps its first word on its own line: where the
    library folds right after `Name:` (a value that fits whole on a continuation line), the break moves to the
    last space that keeps the first line within 78 characters, or goes."""

    def fold_binary(self, name, value):
        return self._first_word_kept(name, super().fold_binary(name, value).decode("ascii")).encode("ascii")

    def fold(self, name, value):
        return self._first_word_kept(name, super().fold(name, value))

    def _first_word_kept(self, name, folded):
        head = f"{name}:{self.linesep} "
        if not folded.startswith(head):
            return folded
        first, _, rest = folded[len(head):].partition(self.linesep)
        line = f"{name}: {first}"
        cut = line.rfind(" ", len(name) + 2, LINE + 1)
        if len(line) > LINE and cut > len(name) + 2:
            line = line[:cut] + self.linesep + line[cut:]
        return line + self.linesep + rest


SMTP = MailPolicy(linesep="\r\n")

templates = jinja2.Environment(
    loader=jinja2.PackageLoader("clinicrecords.mail", "templates"),
    autoescape=jinja2.select_autoescape(enabled_extensions=("html",), default_for_string=False),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
)


@dataclass(frozen=True)
class Composed:
    sender: str         # the envelope sender (MAIL FROM)
    recipient: str      # the one envelope recipient (RCPT TO)
    subject: str
    message_id: str
    content: bytes      # the whole message as sent


def recipient_address(text):
    """The address as the envelope and the To header carry it, or MailRefused: one plain `local@domain` (no
    name, no list, no comment, no line break; ASCII before the @, as SMTPUTF8 is not used; at most 64 characters
    before the @ and 254 in all, RFC 5321's limits), the domain in its ASCII form. The portal's forms ask this
    same function before anything else (`clinicrecords.mail.services.address_problem`)."""
    if not isinstance(text, str) or not text.strip() or len(text.strip()) > MAX_ADDRESS:
        raise MailRefused(NOT_ONE_ADDRESS)
    try:
        address = Address(addr_spec=text.strip())
        domain = idna.encode(address.domain, uts46=True).decode("ascii")
    except (ValueError, TypeError, email.errors.MessageError, idna.IDNAError, UnicodeError):
        raise MailRefused(NOT_ONE_ADDRESS) from None
    if not address.username or len(address.username) > MAX_LOCAL_PART or "." not in domain:
        raise MailRefused(NOT_ONE_ADDRESS)
    # What the parser kept must be what was typed: it drops a comment ("f(x)@example.org" is f@example.org) and
    # folding white space, so such an address would be mailed to another one.
    if Address(username=address.username, domain=address.domain).addr_spec != text.strip():
        raise MailRefused(NOT_ONE_ADDRESS)
    return Address(username=address.username, domain=domain).addr_spec


def link(links_base, path, **query):
    """`links_base` + `path` (e.g. "/invitations") with the query, encoded."""
    if not path.startswith("/"):
        raise ValueError("a portal path starts with /")
    return links_base + path + (f"?{urlencode(query)}" if query else "")


def render(template, values):
    """(subject, text, html) of `template`; MailRefused for a template that does not exist."""
    try:
        subject, text, html = (templates.get_template(f"{template}/{name}")
                               for name in ("subject.txt", "body.txt", "body.html"))
    except jinja2.TemplateNotFound:
        raise MailRefused(f"no mail template {template!r}") from None
    subject = " ".join(subject.render(values).split())
    if not subject or len(subject) > MAX_SUBJECT:
        raise MailRefused(f"the subject of {template!r} must be 1 to {MAX_SUBJECT} characters")
    return subject, text.render(values), html.render(values)


def compose(settings, template, to, regarding, values, unsubscribe=None):
    """The whole message for one recipient, refused (MailRefused) before anything is written when it must not
    be sent. `unsubscribe`, a portal link, becomes its `List-Unsubscribe` header."""
    recipient = recipient_address(to)
    if not isinstance(regarding, str) or not regarding.strip():
        raise MailRefused("every message names the workspace or clinic it is about (regarding)")
    values = {**values, "regarding": " ".join(regarding.split()), "recipient": recipient}
    guard.check_values(values)
    subject, text, html = render(template, {**values, "portal_url": settings.links_base})
    guard.check_rendered((subject, text, html), settings.secrets, settings.links_base)
    message = EmailMessage(policy=SMTP)
    message["From"] = settings.from_address
    message["To"] = Address(addr_spec=recipient)
    message["Subject"] = subject
    message["Date"] = format_datetime(clock.now())
    message_id = make_msgid(domain=settings.from_address.domain)
    message["Message-ID"] = message_id
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to the service
    if unsubscribe is not None:
        if not isinstance(unsubscribe, str) or not unsubscribe.startswith(settings.links_base + "/"):
            raise MailRefused("the unsubscribe link must be a page of the portal")
        message["List-Unsubscribe"] = f"<{unsubscribe}>"
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    return Composed(settings.from_address.addr_spec, recipient, subject, message_id, message.as_bytes())
