"""Where a composed message goes: an SMTP server (smtplib), or in development a folder of `.eml` files.

`send` answers where the message went (for the outbox's line of the log) or raises `SendFailed`, `permanent`
when the server refused the message for good (a 5xx reply to the sender, the recipient or the data: retrying
cannot help), else the failure is worth a retry (a 4xx reply, a connection refused or reset, a time-out, TLS or
log-in trouble). The error names the reply code or the error's kind only: a server's text may repeat the
address. `destination` names the server or folder, never the credentials.
"""

import functools
import os
import smtplib
import socket
import ssl
from dataclasses import dataclass

# The name this host greets servers with (EHLO), looked up once per process: smtplib would ask the resolver
# again on every connection, and a resolver that stalls would spend each message's time-out before it is sent.
_ehlo_name = functools.cache(socket.getfqdn)


@dataclass(frozen=True)
class Outgoing:
    id: str
    sender: str
    recipient: str
    subject: str
    content: bytes
    template: str = ""


class SendFailed(Exception):
    def __init__(self, error, permanent=False):
        super().__init__(error)
        self.error = error[:200]
        self.permanent = permanent


class SmtpTransport:
    """One connection per message: messages are few (sign-ups, invitations, resets), and a worker holds no
    connection a server could drop between them."""

    def __init__(self, server, timeout_seconds):
        self.server = server
        self.timeout = timeout_seconds

    @property
    def destination(self):
        """The server, as the log names it: host and port, never the credentials."""
        return f"the SMTP server {self.server.host}:{self.server.port}"

    def send(self, message):
        try:
            with self._connect() as smtp:
                if self.server.starttls:
                    smtp.starttls(context=ssl.create_default_context())
                if self.server.username:
                    smtp.login(self.server.username, self.server.password or "")
                smtp.sendmail(message.sender, [message.recipient], message.content)
            return f"sent through {self.destination}"
        except smtplib.SMTPRecipientsRefused as exc:
            code = next(iter(exc.recipients.values()))[0]
            raise SendFailed(f"recipient refused: {code}", permanent=code >= 500) from None
        except (smtplib.SMTPSenderRefused, smtplib.SMTPDataError) as exc:
            kind = "sender" if isinstance(exc, smtplib.SMTPSenderRefused) else "message"
            raise SendFailed(f"{kind} refused: {exc.smtp_code}", permanent=exc.smtp_code >= 500) from None
        except smtplib.SMTPResponseException as exc:
            raise SendFailed(f"{type(exc).__name__}: {exc.smtp_code}") from None
        except (smtplib.SMTPException, OSError) as exc:  # refused, reset, timed out, TLS: ssl.SSLError is one
            raise SendFailed(type(exc).__name__) from None

    def _connect(self):
        host, port = self.server.host, self.server.port
        if self.server.implicit_tls:
            return smtplib.SMTP_SSL(host, port, local_hostname=_ehlo_name(), timeout=self.timeout,
                                    context=ssl.create_default_context())
        return smtplib.SMTP(host, port, local_hostname=_ehlo_name(), timeout=self.timeout)


class DirectoryTransport:
    """Development: each message becomes `<directory>/<outbox id>.eml`, and the log says so."""

    def __init__(self, directory):
        self.directory = directory

    @property
    def destination(self):
        return f"the folder {self.directory}"

    def send(self, message):
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            path = self.directory / f"{message.id}.eml"
            partial = path.with_suffix(".eml.partial")
            partial.write_bytes(message.content)
            os.replace(partial, path)  # a reader never sees half a message
        except OSError as exc:
            raise SendFailed(type(exc).__name__) from None
        return f"written to {path}"


def transport_for(settings):
    if settings.smtp is not None:
        return SmtpTransport(settings.smtp, settings.timeout_seconds)
    return DirectoryTransport(settings.eml_directory)
