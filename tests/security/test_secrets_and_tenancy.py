"""Production refuses to start without its secrets; a crafted clinic id never reaches SQL."""

import configparser
import uuid
from pathlib import Path

import pytest

from clinicrecords import make_config
from clinicrecords.db.tenancy import schema_name
from clinicrecords.settings import SettingsError

ROOT = Path(__file__).resolve().parents[2]


def _production_settings():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "production.ini")
    return dict(parser["app:main"])


def _environment_without(monkeypatch, missing):
    for name in ("CLINICRECORDS_CURSOR_SECRET", "CLINICRECORDS_KEY_PEPPER", "CLINICRECORDS_WEBHOOK_KEYS",
                 "CLINICRECORDS_BASE_URL", "CLINICRECORDS_SMTP_URL", "CLINICRECORDS_MAIL_SENDER", "DATABASE_URL",
                 "REDIS_URL", "CLINICRECORDS_EXPORTS_PATH", "CLINICRECORDS_SECURITY_EVENTS_PATH"):
        monkeypatch.setenv(name, {"DATABASE_URL": "postgresql://127.0.0.1:1/x",
                                  "CLINICRECORDS_BASE_URL": "https://records.example.org",
                                  "CLINICRECORDS_SMTP_URL": "smtps://mail.example.org",
                                  "CLINICRECORDS_MAIL_SENDER": "no-reply@example.org",
                                  "CLINICRECORDS_EXPORTS_PATH": "/srv/exports",
                                  "CLINICRECORDS_SECURITY_EVENTS_PATH": "/srv/security-events.jsonl"}.get(name, "set"))
    monkeypatch.delenv(missing)


@pytest.mark.parametrize("missing", ["CLINICRECORDS_CURSOR_SECRET", "CLINICRECORDS_KEY_PEPPER",
                                     "CLINICRECORDS_WEBHOOK_KEYS", "CLINICRECORDS_BASE_URL",
                                     "CLINICRECORDS_SMTP_URL", "CLINICRECORDS_MAIL_SENDER",
                                     "CLINICRECORDS_EXPORTS_PATH", "CLINICRECORDS_SECURITY_EVENTS_PATH"])
def test_production_refuses_to_start_without_a_secret(monkeypatch, missing):
    _environment_without(monkeypatch, missing)
    with pytest.raises(SettingsError, match=missing):
        make_config(_production_settings())


def test_the_process_refuses_with_one_line_and_exit_2(monkeypatch, capsys):
    from clinicrecords import main

    _environment_without(monkeypatch, "CLINICRECORDS_KEY_PEPPER")
    with pytest.raises(SystemExit) as stopped:
        main({}, **_production_settings())
    assert stopped.value.code == 2
    stderr = capsys.readouterr().err
    assert stderr == ("clinicrecords: refusing to start: setting 'secrets.key_pepper' needs the environment "
                      "variable CLINICRECORDS_KEY_PEPPER\n")


@pytest.mark.parametrize("crafted", [
    "x'; DROP SCHEMA control CASCADE; --",
    "00000000-0000-0000-0000-000000000000; DROP TABLE x",
    "clinic_public",
    "..",
    "%27",
])
def test_a_crafted_clinic_id_is_a_plain_404(testapp, connected, crafted):
    response = testapp.get(f"/v1/clinics/{crafted}/patients", headers=connected.headers, status=404)
    assert response.json["code"] == "not_found"
    assert testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers).status_int == 200


# Fixed ids for random values: pytest-xdist's workers must collect the same test ids.
@pytest.mark.parametrize("value", ["public", "x; DROP SCHEMA control", pytest.param(uuid.uuid4().hex, id="uuid-hex"),
                                   None])
def test_schema_names_are_built_from_uuids_only(value):
    with pytest.raises(TypeError):
        schema_name(value)
