"""Mail settings (`mail.*` in the ini file), read here and nowhere else, with the documented defaults.

- `mail.smtp_url`, which the environment variable CLINICRECORDS_SMTP_URL overrides:
  `smtp://[user:password@]host[:port][?starttls=true]` or `smtps://[user:password@]host[:port]`, the user and
  password percent-encoded. Empty (development): each message is written to `mail.directory` (default
  `<var>/mail`) as one `.eml` file instead.
- `mail.sender`: the From address, e.g. `Clinic Records <no-reply@example.org>`.
- Retries: `mail.retry_base_seconds`, `mail.retry_cap_seconds`, `mail.max_attempts`; a worker's claim
  `mail.claim_seconds`, the sweep's grace `mail.sweep_grace_seconds`, the SMTP time limit
  `mail.timeout_seconds`; sent and failed rows are kept `mail.keep_days`.
"""

import os
import re
from dataclasses import dataclass, field
from email.headerregistry import Address
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from clinicrecords.api.public_url import portal_base_url
from clinicrecords.settings import SettingsError, as_bool, var_dir

ENV_SMTP_URL = "CLINICRECORDS_SMTP_URL"
REGISTRY_KEY = "mail.settings"
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
# The service's own secrets: the guard refuses a message that carries one (mail/guard.py).
SECRET_SETTINGS = ("secrets.cursor", "secrets.key_pepper", "secrets.webhook_keys")


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
class MailSettings:
    sender: Address
    links_base: str                     # the portal's public address: every link in a message starts with it
    smtp: SmtpServer | None = None      # None: the directory transport (development)
    directory: Path | None = None
    timeout_seconds: float = 30.0
    retry_base_seconds: float = 30.0
    retry_cap_seconds: float = 3600.0
    max_attempts: int = 10
    claim_seconds: float = 120.0
    sweep_grace_seconds: float = 60.0
    keep_days: float = 30.0
    # The values of the service's own secrets (and the SMTP password): a message that contains one is refused.
    secrets: frozenset = field(default=frozenset(), repr=False, compare=False)

    @classmethod
    def from_settings(cls, settings, environ=os.environ):
        url = environ.get(ENV_SMTP_URL) or settings.get("mail.smtp_url") or ""
        smtp = parse_smtp_url(url) if url.strip() else None
        directory = None
        if smtp is None:
            directory = Path(settings.get("mail.directory") or var_dir(settings) / "mail")
        numbers = {}
        for name, kind in (("timeout_seconds", float), ("retry_base_seconds", float), ("retry_cap_seconds", float),
                           ("max_attempts", int), ("claim_seconds", float), ("sweep_grace_seconds", float),
                           ("keep_days", float)):
            raw = settings.get(f"mail.{name}")
            if raw is not None and str(raw).strip():
                try:
                    numbers[name] = kind(raw)
                except ValueError:
                    raise SettingsError(f"mail.{name} must be a number, not {raw!r}") from None
        if numbers.get("max_attempts", 1) < 1:
            raise SettingsError("mail.max_attempts must be at least 1")
        settings_secrets = {settings.get(name) or "" for name in SECRET_SETTINGS}
        secrets = {part.strip() for value in settings_secrets for part in re.split(r"[\s,:]+", value)}
        secrets |= {smtp.password} if smtp and smtp.password else set()
        # Short parts (a key id such as "dev") are names, not secrets: only what could open something.
        secrets = frozenset(value for value in secrets if len(value) >= 16)
        return cls(sender=parse_sender(settings.get("mail.sender")), links_base=portal_base_url(settings),
                   smtp=smtp, directory=directory, secrets=secrets, **numbers)


def mail_settings(registry):
    return registry[REGISTRY_KEY]
