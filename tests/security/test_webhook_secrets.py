"""Webhook signing secrets are sealed at rest (AES-GCM, keys from `secrets.webhook_keys`): the database never
holds one in clear, deliveries still verify with the partner's secret, keys rotate, and c15 seals old rows."""

import base64
import configparser
import uuid
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool
from standardwebhooks.webhooks import Webhook

from clinicrecords import make_config
from clinicrecords.clinics.models import Clinic
from clinicrecords.db import embedded, migrations
from clinicrecords.events.secret_box import SecretBox, SecretBoxError, new_key_entry
from clinicrecords.settings import SettingsError, read, var_dir
from tests.common import task_queue
from tests.common.cli import ok, refused
from tests.conftest import ROOT, TESTING_INI
from tests.events.support import Receiver, emit_events

TEST_KEYS = "secrets.webhook_keys"


def _dump(engine):
    with engine.connect() as connection:
        return connection.execute(text("SELECT string_agg(t::text, '|') FROM control.webhook_endpoints t")).scalar()


def _never_in(dump, secret):
    raw = base64.b64decode(secret.removeprefix("whsec_"))
    for form in (secret, secret.removeprefix("whsec_"), raw.hex(), base64.urlsafe_b64encode(raw).decode()):
        assert form not in dump


def _ini(tmp_path, keys):
    """testing.ini with another key ring: what an operator's config looks like during a key rotation."""
    path = tmp_path / f"keys-{uuid.uuid4().hex[:8]}.ini"
    lines = []
    for line in Path(TESTING_INI).read_text().replace("%(here)s", str(ROOT)).splitlines():
        lines.append(f"{TEST_KEYS} = {keys}" if line.startswith(TEST_KEYS) else line)
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _current_entry():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(TESTING_INI)
    return parser["app:main"][TEST_KEYS]


def test_the_stored_row_never_holds_the_secret_and_deliveries_verify(world, engine, tmp_path):
    clinic_id = world.clinic()
    with Receiver() as receiver:
        endpoint_id, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
        rotated = ok("webhook", "rotate-secret", endpoint_id)["secret"]
        [event] = emit_events(world, clinic_id)
    dump = _dump(engine)
    assert str(endpoint_id) in dump
    _never_in(dump, secret)
    _never_in(dump, rotated)
    [(_, headers, body)] = receiver.requests
    assert Webhook(secret).verify(body, headers)["id"] == str(event.id)
    assert Webhook(rotated).verify(body, headers)["id"] == str(event.id)


def test_a_sealed_secret_opens_only_on_its_own_endpoint_and_with_its_key():
    box = SecretBox.from_setting(new_key_entry("a"))
    endpoint_id = uuid.uuid4()
    sealed = box.seal("whsec_abc", endpoint_id)
    assert sealed.startswith("v1:a:") and "whsec_abc" not in sealed
    assert box.open(sealed, endpoint_id) == "whsec_abc"
    assert box.seal("whsec_abc", endpoint_id) != sealed, "a fresh nonce every time"
    with pytest.raises(SecretBoxError):
        box.open(sealed, uuid.uuid4())  # copied onto another endpoint's row
    with pytest.raises(SecretBoxError):
        SecretBox.from_setting(new_key_entry("a")).open(sealed, endpoint_id)  # same id, another key
    tampered = sealed[:-2] + ("A" if sealed[-2] != "A" else "B") + sealed[-1]
    with pytest.raises(SecretBoxError):
        box.open(tampered, endpoint_id)


@pytest.mark.parametrize("setting", [
    None, "", "nokey", "a:", "a:c2hvcnQ", "bad id:" + "A" * 43,
    # a fixed id for random keys: pytest-xdist's workers must collect the same test ids
    pytest.param(f"{new_key_entry('a')} {new_key_entry('a')}", id="a:key a:key"),
])
def test_start_up_refuses_a_missing_or_malformed_key_ring(settings, setting):
    broken = {name: value for name, value in settings.items() if name != TEST_KEYS}
    if setting is not None:
        broken[TEST_KEYS] = setting
    with task_queue.kept(), pytest.raises(SettingsError, match=TEST_KEYS):  # a half-built application
        make_config(broken)


def test_key_rotation_new_key_first_reseal_then_drop_the_old_key(world, engine, tmp_path):
    old = _current_entry()
    new = ok("webhook", "new-key", "--id", "next")["entry"]
    assert new.startswith("next:") and SecretBox.from_setting(new).current_key_id == "next"
    both = _ini(tmp_path, f"{new} {old}")
    new_only = _ini(tmp_path, new)
    clinic_id = world.clinic()
    with Receiver(default=200) as receiver:
        endpoint_id, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
        assert _sealed_key_ids(engine, endpoint_id) == {"test"}
        try:
            # The old key still opens what it sealed while the new one seals: pings sign with the partner's secret.
            assert ok("webhook", "test", endpoint_id, ini=both)["delivered"] is True
            resealed = ok("webhook", "reseal-secrets", ini=both)
            assert resealed["key_id"] == "next" and resealed["resealed"] >= 1
            assert _sealed_key_ids(engine, endpoint_id) == {"next"}
            assert ok("webhook", "reseal-secrets", ini=both)["resealed"] == 0, "nothing left under the old key"
            # The old key can leave the setting.
            assert ok("webhook", "test", endpoint_id, ini=new_only)["delivered"] is True
            for _, headers, body in receiver.requests:
                assert Webhook(secret).verify(body, headers)["type"] == "webhook.ping"
            # Without the key that sealed them, nothing is resealed: exit 2, nothing changed.
            stranger = _ini(tmp_path, new_key_entry("other"))
            err = refused("webhook", "reseal-secrets", ini=stranger)
            assert "no configured key 'next'" in err
            pinged, recorded = len(receiver.requests), ok("webhook", "deliveries", endpoint_id)["deliveries"]
            assert "no configured key 'next'" in refused("webhook", "test", endpoint_id, ini=stranger)
            assert len(receiver.requests) == pinged
            assert ok("webhook", "deliveries", endpoint_id)["deliveries"] == recorded
            assert _sealed_key_ids(engine, endpoint_id) == {"next"}
        finally:
            # Put every endpoint of the shared test database back under the suite's key.
            ok("webhook", "reseal-secrets", ini=_ini(tmp_path, f"{old} {new}"))
        assert _sealed_key_ids(engine, endpoint_id) == {"test"}
        _never_in(_dump(engine), secret)


def _sealed_key_ids(engine, endpoint_id):
    with engine.connect() as connection:
        row = connection.execute(text("SELECT secret_sealed, previous_secret_sealed FROM control.webhook_endpoints "
                                      "WHERE id = :id"), {"id": endpoint_id}).one()
    return {value.split(":")[1] for value in row if value}


@pytest.mark.parametrize("argv", [("webhook", "new-key"), ("webhook", "new-key", "--id", "has space"),
                                  ("webhook", "new-key", "--id", "x" * 33)])
def test_new_key_refuses_bad_ids(argv):
    refused(*argv)


@pytest.fixture
def scratch_engine(settings):
    """A database of its own on the embedded server, for migrating the control schema from an old revision."""
    name = "clinicrecords_c15_" + uuid.uuid4().hex[:8]
    url = embedded.database_url(var_dir(read(settings)), name)
    engine = create_engine(url, poolclass=NullPool)
    yield engine
    engine.dispose()
    embedded.drop_database(var_dir(read(settings)), name)


def _control_to(engine, revision, settings=None, downgrade=False):
    with engine.begin() as connection:
        connection.execute(text("CREATE SCHEMA IF NOT EXISTS control"))
        migrations.prepare_migration_transaction(connection, "control")
        config = migrations.alembic_config("control", connection, "control",
                                           settings=None if settings is None else read(settings))
        (command.downgrade if downgrade else command.upgrade)(config, revision)


def test_c15_seals_the_secrets_of_existing_endpoints(scratch_engine, settings):
    _control_to(scratch_engine, "c13_plans")
    clinic_id, endpoint_id = uuid.uuid4(), uuid.uuid4()
    secret, previous = "whsec_" + base64.b64encode(b"1" * 32).decode(), "whsec_" + base64.b64encode(b"2" * 32).decode()
    with scratch_engine.begin() as connection:
        connection.execute(Clinic.__table__.insert().values(id=clinic_id, name="Old", kind="clinic", currency="USD"))
        connection.execute(text("INSERT INTO control.webhook_endpoints (id, clinic_id, mode, url, secret, "
                                "previous_secret) VALUES (:id, :clinic, 'live', 'https://example.org/h', :s, :p)"),
                           {"id": endpoint_id, "clinic": clinic_id, "s": secret, "p": previous})
    with pytest.raises(RuntimeError, match="secrets.webhook_keys"):
        _control_to(scratch_engine, "c15_webhook_secret_crypto")  # no keys: refuses, nothing changed
    _control_to(scratch_engine, "c15_webhook_secret_crypto", settings)
    columns = {c["name"] for c in inspect(scratch_engine).get_columns("webhook_endpoints", schema="control")}
    assert {"secret_sealed", "previous_secret_sealed"} <= columns and not {"secret", "previous_secret"} & columns
    _never_in(_dump(scratch_engine), secret)
    _never_in(_dump(scratch_engine), previous)
    box = SecretBox.from_setting(settings[TEST_KEYS])
    with scratch_engine.connect() as connection:
        row = connection.execute(text("SELECT secret_sealed, previous_secret_sealed FROM control.webhook_endpoints"
                                      )).one()
    assert (box.open(row[0], endpoint_id), box.open(row[1], endpoint_id)) == (secret, previous)
    _control_to(scratch_engine, "c13_plans", settings, downgrade=True)
    with scratch_engine.connect() as connection:
        assert connection.execute(text("SELECT secret, previous_secret FROM control.webhook_endpoints")).one() == \
            (secret, previous)
