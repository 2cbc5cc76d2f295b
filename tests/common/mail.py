"""A real SMTP server on loopback (aiosmtpd) that keeps what it received, for every test that reads the
service's mail: `smtp_server` (one per test process, CLINICRECORDS_SMTP_URL points the application at it)
and `mail` (its inbox, emptied for the test) in tests/conftest.py.

    [message] = mail.wait_for(1)
    assert message.to == ["someone@example.org"] and "workspace Acme" in message.text
    page = testapp.get(message.link("/invitations"))
"""

import asyncio
import collections
import re
import threading
import time
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage

from aiosmtpd.controller import Controller
from sqlalchemy import select

from clinicrecords.mail.models import OutgoingMail

LINK = re.compile(r"https?://[^\s<>\"']+")


@dataclass(frozen=True)
class Received:
    """One message as the server got it: the envelope and the parsed message."""

    mail_from: str
    rcpt_tos: list
    message: EmailMessage

    @property
    def to(self):
        return self.rcpt_tos

    @property
    def subject(self):
        # Unfolded as RFC 5322 says (the line break goes, the space stays): a subject folded before its first
        # word would read with a leading space, which the service's mail policy never sends.
        return self.message["Subject"]

    def part(self, subtype):
        found = self.message.get_body(preferencelist=(subtype,))
        if found is None or found.get_content_subtype() != subtype:
            return None
        return found.get_content()

    @property
    def text(self):
        return self.part("plain")

    @property
    def html(self):
        return self.part("html")

    def links(self):
        """Every link in the plain-text part, in order."""
        return LINK.findall(self.text or "")

    def link(self, containing=""):
        """The one link of the text part that contains `containing` (a path such as "/invitations")."""
        found = [link for link in self.links() if containing in link]
        assert len(found) == 1, f"links containing {containing!r}: {found}"
        return found[0]


class Inbox:
    """aiosmtpd's handler: keeps each accepted message. `refuse_next` makes it answer the next DATA commands
    with the given replies (e.g. "451 4.3.0 try again later") before accepting again; `hold_until_released`
    keeps every RCPT waiting until the event it returns is set (so a worker can be killed before it sent the
    message). `arrived` is set when a client names its recipient."""

    def __init__(self):
        self.lock = threading.Lock()
        self.received = []
        self.replies = collections.deque()
        self.attempts = 0
        self._hold = None
        self.arrived = threading.Event()
        self.explain = None

    def clear(self):
        with self.lock:
            self.received.clear()
            self.replies.clear()
            self.attempts = 0
            self.arrived.clear()
        self.release()

    def refuse_next(self, *replies):
        with self.lock:
            self.replies.extend(replies)

    def hold_until_released(self):
        self._hold = threading.Event()
        return self._hold

    def release(self):
        if self._hold is not None:
            self._hold.set()
            self._hold = None

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        self.arrived.set()
        hold = self._hold
        while hold is not None and not hold.is_set():
            await asyncio.sleep(0.05)
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.attempts += 1
            if self.replies:
                return self.replies.popleft()
            self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos),
                                          message_from_bytes(envelope.original_content, policy=policy.default)))
        return "250 2.0.0 Message accepted"

    def messages(self):
        with self.lock:
            return list(self.received)

    def wait_for(self, count, timeout=30):
        """The messages, once at least `count` have arrived (the worker sends them in its own time)."""
        deadline = time.monotonic() + timeout
        while len(self.messages()) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        found = self.messages()
        assert len(found) >= count, (f"{len(found)} message(s) arrived, expected {count}"
                                     + (f"; the outbox: {self.explain()}" if self.explain else ""))
        return found


class _LoopbackController(Controller):
    """aiosmtpd's Controller on 127.0.0.1 and a port the system chooses (port 0), read back once bound."""

    def _trigger_server(self):
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()


class SmtpServer:
    def __init__(self, **controller_options):
        self.inbox = Inbox()
        # A fixed greeting name: aiosmtpd would otherwise ask the resolver for this host's name on every connection.
        controller_options.setdefault("server_hostname", "localhost")
        self.controller = _LoopbackController(self.inbox, hostname="127.0.0.1", port=0, **controller_options)

    @property
    def port(self):
        return self.controller.port

    @property
    def url(self):
        scheme = "smtps" if self.controller.ssl_context else "smtp"
        return f"{scheme}://127.0.0.1:{self.port}"

    def start(self):
        self.controller.start()
        return self

    def stop(self):
        self.inbox.release()
        self.controller.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def outbox_rows(engine):
    """Each outbox row's state in one line, for a failed wait's message."""
    columns = (OutgoingMail.template, OutgoingMail.status, OutgoingMail.attempts, OutgoingMail.last_error,
               OutgoingMail.next_attempt_at, OutgoingMail.locked_until)
    with engine.connect() as connection:
        return [tuple(map(str, row)) for row in connection.execute(select(*columns))]
