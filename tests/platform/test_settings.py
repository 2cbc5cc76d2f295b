"""Settings are read once into one typed object whose defaults live in one module: clinicrecords.settings
declares each setting with its type, default and environment variable; nothing else reads the ini's settings or
writes a default for one; a value that does not parse stops start-up with one line naming the setting."""

import ast
import dataclasses
from pathlib import Path

import pytest
from pyramid.paster import get_appsettings

import clinicrecords
from clinicrecords import main, make_config
from clinicrecords.settings import (
    ENV_DNS_NAMESERVERS,
    LIBRARY_DEFAULTS,
    AppSettings,
    MailDeliverySettings,
    SettingsError,
    app_settings,
    declared,
    read,
)

PACKAGE = Path(clinicrecords.__file__).parent
ROOT = PACKAGE.parent
# Settings the libraries read themselves (pyramid_retry, pyramid_tm, pyramid_jinja2), never the application.
LIBRARY_PREFIXES = ("retry.", "tm.", "jinja2.")


def _is_settings(node):
    """`settings`, `....settings` or `config.get_settings()`: the ini's mapping under any of its names."""
    if isinstance(node, ast.Name):
        return node.id == "settings"
    if isinstance(node, ast.Attribute):
        return node.attr == "settings"
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get_settings"


def _reads_of_the_ini(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_settings(node.value):
            yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get", "setdefault", "pop") and _is_settings(node.func.value):
            yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.Attribute) and node.attr == "settings" and isinstance(node.value, ast.Name) \
                and node.value.id in ("registry", "config"):
            yield node.lineno, ast.unparse(node)
        elif _is_settings(node) and isinstance(node, ast.Call):
            yield node.lineno, ast.unparse(node)


def test_nothing_but_the_settings_module_reads_the_ini_or_writes_a_default():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "settings.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(ROOT)}:{line}: {text}" for line, text in _reads_of_the_ini(tree)]
    assert found == []


def test_every_setting_of_the_shipped_ini_files_is_declared_once():
    names = [name for name, *_ in declared()]
    assert len(names) == len(set(names)) > 60
    for ini in ("development.ini", "testing.ini", "production.ini"):
        shipped = get_appsettings(str(ROOT / ini), "main")
        unknown = [name for name in shipped
                   if name not in names and name not in LIBRARY_DEFAULTS and not name.startswith(LIBRARY_PREFIXES)]
        assert unknown == [], ini


def test_the_application_reads_its_settings_once_into_the_typed_object(app, settings):
    typed = app_settings(app.registry)
    assert isinstance(typed, AppSettings)
    assert typed == read(settings)
    assert (typed.database.pool_size, typed.plans.paid_included_requests, typed.portal.secure_cookies) == (5, 5, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        typed.database.pool_size = 1


def test_an_unset_setting_takes_its_one_declared_default(settings):
    required = {name: value for name, value in settings.items()
                if name.startswith("secrets.") or name == "mail.sender"}
    typed = read(required, environ={})
    assert typed == AppSettings(secrets=typed.secrets, mail=MailDeliverySettings(sender=typed.mail.sender))
    assert (typed.database.pool_size, typed.ratelimit.live_per_minute, typed.portal.session_absolute_hours,
            typed.webhooks.require_https) == (10, 600, 12, True)


def test_an_environment_variable_takes_the_place_of_its_setting(settings):
    environ = {ENV_DNS_NAMESERVERS: "127.0.0.1:5353", "CLINICRECORDS_VAR": "/elsewhere", "DATABASE_URL": "postgres://x"}
    typed = read(settings, environ)
    assert (typed.verification.nameservers, typed.var, typed.database.url) == \
        ("127.0.0.1:5353", "/elsewhere", "postgres://x")
    # DATABASE_URL replaces only `embedded`: a URL written in the ini stays.
    assert read({**settings, "database_url": "postgres://ini"}, environ).database.url == "postgres://ini"


@pytest.mark.parametrize(("name", "value", "words"), [
    ("ratelimit.live_per_minute", "many", "setting 'ratelimit.live_per_minute' must be a whole number, not 'many'"),
    ("webhooks.timeout_seconds", "soon", "setting 'webhooks.timeout_seconds' must be a number, not 'soon'"),
    ("plans.paid.included_clinics", "-1", "plans.paid.included_clinics must be a whole number of 0 or more"),
])
def test_a_value_that_does_not_parse_stops_start_up_naming_the_setting(settings, capsys, name, value, words):
    with pytest.raises(SettingsError, match=words):
        make_config({**settings, name: value})
    with pytest.raises(SystemExit) as stopped:
        main({}, **{**settings, name: value})
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("clinicrecords: refusing to start: ") and words in err and err.count("\n") == 1


def test_a_missing_secret_stops_start_up_naming_it(settings):
    with pytest.raises(SettingsError, match="setting 'secrets.cursor' is required"):
        make_config({name: value for name, value in settings.items() if name != "secrets.cursor"})
