"""Revision t21_key_setting_connection: the settings of organization keys made before decision 0052 get the
connection they were switched on under, so they keep applying; one switched on before the connection was
renewed applies to nothing."""

import datetime

from alembic import command
from sqlalchemy import text, update

from clinicrecords.db import migrations
from clinicrecords.db.tenancy import bind_to_clinic, schema_name
from clinicrecords.review.models import AutoAcceptSetting
from tests.review.conftest import Clinic, ok

BEFORE = "t20_auto_accept_switched_on"
REVISION = "t21_key_setting_connection"


def _key(clinic):
    return ("--key", clinic.connected.key.split("_")[2])


def _as_before_the_revision(world, clinic, switched_on_at=None):
    """The clinic's schema back at t20 with its key setting as that code wrote it (no connected_at)."""
    with world.db() as db:
        bind_to_clinic(db, clinic.id)
        values = {"connected_at": None}
        if switched_on_at is not None:
            values["switched_on_at"] = switched_on_at
        db.execute(update(AutoAcceptSetting).where(AutoAcceptSetting.sender_type == "key").values(**values))
        _migrate(db, clinic, command.downgrade, BEFORE)


def _migrate(db, clinic, move, revision):
    connection = db.connection()
    schema = schema_name(clinic.id)
    migrations.prepare_migration_transaction(connection, schema)
    move(migrations.alembic_config("tenant", connection, schema), revision)
    connection.execute(text("RESET search_path"))


def _upgrade(world, clinic):
    with world.db() as db:
        _migrate(db, clinic, command.upgrade, REVISION)


def test_a_key_setting_of_the_connection_in_force_keeps_applying(testapp, world):
    clinic = Clinic(testapp, world, world.connected())
    ok("auto-accept", "set", "--clinic", clinic.id, *_key(clinic), "--kinds", "allergy", "--on")
    _as_before_the_revision(world, clinic)
    _upgrade(world, clinic)
    [setting] = ok("auto-accept", "show", "--clinic", clinic.id)["settings"]
    assert setting["connected_at"] and setting["for_current_connection"] is True
    assert clinic.allergy("Peanut").json["data"]["review_status"] == "confirmed"


def test_a_key_setting_older_than_the_connection_in_force_applies_to_nothing(testapp, world):
    clinic = Clinic(testapp, world, world.connected())
    ok("auto-accept", "set", "--clinic", clinic.id, *_key(clinic), "--kinds", "allergy", "--on")
    _as_before_the_revision(world, clinic, switched_on_at=datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC))
    _upgrade(world, clinic)
    [setting] = ok("auto-accept", "show", "--clinic", clinic.id)["settings"]
    assert setting["connected_at"] is None and setting["for_current_connection"] is False
    assert clinic.allergy("Peanut").json["data"]["review_status"] == "pending"


def test_a_clinic_key_s_setting_needs_no_connection(testapp, world):
    clinic_id = world.clinic()
    key_id, key = world.key_row(clinic_id=clinic_id)
    ok("auto-accept", "set", "--clinic", clinic_id, "--key", key_id, "--kinds", "allergy", "--on")
    connected = type("Own", (), {"clinic_id": clinic_id, "headers": {"Authorization": f"Bearer {key}"}})
    clinic = Clinic(testapp, world, connected)
    _as_before_the_revision(world, clinic)
    _upgrade(world, clinic)
    [setting] = ok("auto-accept", "show", "--clinic", clinic_id)["settings"]
    assert setting["connected_at"] is None and setting["for_current_connection"] is True
    assert clinic.allergy("Peanut").json["data"]["review_status"] == "confirmed"
