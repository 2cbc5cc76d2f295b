"""`mail.smtp_url` (overridden by CLINICRECORDS_SMTP_URL) and `mail.sender`: read once, refused when wrong,
never a password in clear beyond this machine; development.ini writes files, production.ini needs a server."""

import configparser
from pathlib import Path

import pytest

from clinicrecords.mail.settings import MailSettings, SmtpServer, parse_smtp_url
from clinicrecords.settings import SettingsError, read

ROOT = Path(__file__).resolve().parents[2]
SENDER = {"mail.sender": "Clinic Records <no-reply@example.org>"}
SECRETS = {"secrets.cursor": "c" * 32, "secrets.key_pepper": "p" * 32}


def _mail(ini, environ=None):
    """The mail settings start-up derives from the ini's mapping (`environ`: the process's environment)."""
    return MailSettings.from_settings(read({**SECRETS, **ini}, {} if environ is None else environ))


def _ini(name):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / name)
    return {key: value.replace("%(here)s", str(ROOT)) for key, value in parser["app:main"].items()}


@pytest.mark.parametrize("url, server", [
    ("smtp://mail.example.org", SmtpServer("mail.example.org", 25)),
    ("smtp://mail.example.org:2525", SmtpServer("mail.example.org", 2525)),
    ("smtps://relay%40clinic:p%40ss%3A1@mail.example.org",
     SmtpServer("mail.example.org", 465, implicit_tls=True, username="relay@clinic", password="p@ss:1")),
    ("smtp://u:p@mail.example.org:587?starttls=true",
     SmtpServer("mail.example.org", 587, starttls=True, username="u", password="p")),
    ("smtp://u:p@127.0.0.1:1025", SmtpServer("127.0.0.1", 1025, username="u", password="p")),
], ids=["plain", "port", "smtps-credentials", "starttls", "loopback-in-clear"])
def test_smtp_urls(url, server):
    assert parse_smtp_url(url) == server


@pytest.mark.parametrize("url, complaint", [
    ("http://mail.example.org", "must be smtp://"),
    ("mail.example.org:25", "must be smtp://"),
    ("smtp://mail.example.org:notaport", "port"),
    ("smtp://mail.example.org/path", "must be smtp://"),
    ("smtp://mail.example.org?tls=yes", "starttls"),
    ("smtp://user:hunter2@mail.example.org", "password in clear"),
], ids=["http", "no-scheme", "port", "path", "unknown-parameter", "password-in-clear"])
def test_a_bad_smtp_url_stops_start_up_without_repeating_the_password(url, complaint):
    with pytest.raises(SettingsError, match=complaint) as refused:
        _mail({"mail.smtp_url": url, **SENDER})
    assert "hunter2" not in str(refused.value)


def test_the_environment_variable_overrides_the_setting():
    settings = {"mail.smtp_url": "smtp://ini.example.org", **SENDER}
    chosen = _mail(settings, {"CLINICRECORDS_SMTP_URL": "smtps://env.example.org"})
    assert chosen.smtp == SmtpServer("env.example.org", 465, implicit_tls=True)
    assert _mail(settings).smtp.host == "ini.example.org"


def test_the_password_is_never_in_the_settings_repr_and_is_a_secret_the_guard_refuses():
    ini = {**SECRETS, "mail.smtp_url": "smtps://u:a-long-relay-password@mail.example.org", **SENDER}
    settings = _mail(ini)
    assert "a-long-relay-password" not in repr(settings)
    shown = repr(read(ini, {}))
    assert "a-long-relay-password" not in shown and SECRETS["secrets.key_pepper"] not in shown
    assert "a-long-relay-password" in settings.secrets


@pytest.mark.parametrize("sender", [None, "", "no-reply", "Clinic <no-reply@example.org", "a@b.org, c@d.org",
                                    "Clinic\r\nBcc: x@y.org <no-reply@example.org>", "no-reply@nodot"],
                         ids=["unset", "empty", "no-at", "unclosed", "list", "crlf", "no-dot"])
def test_a_sender_that_is_not_one_address_stops_start_up(sender):
    with pytest.raises(SettingsError, match="mail.sender"):
        _mail({"mail.smtp_url": "smtp://mail.example.org", "mail.sender": sender})


def test_development_writes_files_under_var_mail_and_links_to_the_local_portal():
    settings = _mail({**_ini("development.ini"), "server.listen": "localhost:6543"})
    assert settings.smtp is None and settings.eml_directory == ROOT / "var" / "mail"
    assert settings.links_base == "http://localhost:6543/portal"
    assert str(settings.from_address) == "Clinic Records <no-reply@localhost>"


def test_production_links_to_the_portals_public_address():
    given = {name: value for name, value in _ini("production.ini").items() if not value.startswith("env:")}
    settings = {**given, "mail.smtp_url": "smtps://mail.example.org",
                "mail.sender": "no-reply@example.org", "portal.url": "https://developers.example.org/"}
    assert _mail(settings).links_base == "https://developers.example.org"
    assert _ini("production.ini")["mail.smtp_url"] == "env:CLINICRECORDS_SMTP_URL"
    assert _ini("production.ini")["mail.sender"] == "env:CLINICRECORDS_MAIL_SENDER"


@pytest.mark.parametrize("name, value, words", [
    ("mail.max_attempts", "0", "mail.max_attempts must be a whole number of 1 or more"),
    ("mail.retry_base_seconds", "soon", "setting 'mail.retry_base_seconds' must be a number"),
])
def test_a_number_that_does_not_parse_stops_start_up_naming_it(name, value, words):
    with pytest.raises(SettingsError, match=words):
        _mail({**SENDER, name: value})
