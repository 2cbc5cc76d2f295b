"""Mail settings: the `mail.*` settings (declared with their defaults in clinicrecords.settings: the SMTP URL,
which CLINICRECORDS_SMTP_URL overrides, the sender, the directory, the retries and time limits) and what start-up
derives from them, refusing what is wrong:

- `mail.smtp_url`: `smtp://[user:password@]host[:port][?starttls=true]` or `smtps://[user:password@]host[:port]`,
  the user and password percent-encoded. Empty (development): each message is written to `mail.directory`
  (default `<var>/mail`) as one `.eml` file instead.
- `mail.sender`: the From address, e.g. `Clinic Records <no-reply@example.org>`.
- the portal's public address every link starts with, and the values of the service's secrets the guard
  refuses to mail.
"""

import re
from dataclasses import asdict, dataclass, field
from email.headerregistry import Address
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from clinicrecords.api.public_url import portal_base_url
from clinicrecords.settings import MailDeliverySettings, SettingsError, as_bool, var_dir

# The MailSettings the application mails with, kept in the registry by clinicrecords.mail.
REGISTRY_KEY = "mail.settings"
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    implicit_tls: bool = False
    starttls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def encrypted(self):
        return self.implicit_tls or self.starttls


def parse_smtp_url(text):
    """An `SmtpServer` from `smtp://...` or `smtps://...`; SettingsError naming what is wrong (never the
    password)."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname or parts.path not in ("", "/") \
            or parts.fragment:
        raise SettingsError("mail.smtp_url must be smtp://[user:password@]host[:port] or smtps://..., "
                            f"not a {parts.scheme or 'schemeless'} URL")
    try:
        port = parts.port or (465 if parts.scheme == "smtps" else 25)
    except ValueError:
        raise SettingsError("mail.smtp_url has a port that is not a number from 1 to 65535") from None
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = set(query) - {"starttls"}
    if unknown:
        raise SettingsError(f"mail.smtp_url knows only the query parameter starttls, not {sorted(unknown)}")
    server = SmtpServer(host=parts.hostname, port=port, implicit_tls=parts.scheme == "smtps",
                        starttls=parts.scheme == "smtp" and as_bool(query.get("starttls", "false")),
                        username=unquote(parts.username) if parts.username else None,
                        password=unquote(parts.password) if parts.password else None)
    if server.username and not server.encrypted and server.host not in LOOPBACK_HOSTS:
        raise SettingsError("mail.smtp_url sends a password in clear: use smtps:// or ?starttls=true")
    return server


def parse_sender(text):
    """The From header's value, checked by the email library: `Name <address>` or `address`."""
    if not text or not text.strip():
        raise SettingsError("mail.sender is needed (the From address, e.g. Clinic Records <no-reply@example.org>)")
    match = re.fullmatch(r"\s*(?:(?P<name>[^<>\"\r\n]*?)\s*<(?P<spec>[^<>\s]+)>|(?P<bare>[^<>\s]+))\s*", text)
    try:
        if match is None:
            raise ValueError(text)
        address = Address(display_name=(match["name"] or "").strip(), addr_spec=match["spec"] or match["bare"])
    except (ValueError, TypeError) as exc:
        raise SettingsError(f"mail.sender is not an email address: {exc}") from None
    if "." not in address.domain and address.domain != "localhost":
        raise SettingsError("mail.sender's domain has no dot")
    return address


@dataclass(frozen=True)
class MailSettings(MailDeliverySettings):
    from_address: Address | None = None     # `sender`, parsed
    links_base: str = ""                    # the portal's public address: every link in a message starts with it
    smtp: SmtpServer | None = None          # `smtp_url`, parsed; None: the directory transport (development)
    eml_directory: Path | None = None       # where the directory transport writes
    # The values of the service's own secrets (and the SMTP password): a message that contains one is refused.
    secrets: frozenset = field(default=frozenset(), repr=False, compare=False)

    @classmethod
    def from_settings(cls, settings):
        """From the application's settings (an AppSettings); what does not parse stops start-up."""
        mail = settings.mail
        smtp = parse_smtp_url(mail.smtp_url) if mail.smtp_url.strip() else None
        eml_directory = None if smtp else Path(mail.directory or var_dir(settings) / "mail")
        own = (settings.secrets.cursor, settings.secrets.key_pepper, settings.secrets.webhook_keys or "")
        secrets = {part.strip() for value in own for part in re.split(r"[\s,:]+", value)}
        secrets |= {smtp.password} if smtp and smtp.password else set()
        # Short parts (a key id such as "dev") are names, not secrets: only what could open something.
        secrets = frozenset(value for value in secrets if len(value) >= 16)
        return cls(**asdict(mail), from_address=parse_sender(mail.sender), links_base=portal_base_url(settings),
                   smtp=smtp, eml_directory=eml_directory, secrets=secrets)


def mail_settings(registry):
    return registry[REGISTRY_KEY]
