"""Migrating every clinic schema through a new revision (the path bench.tenants measures), in a database of
its own so the suite's clinics stay at the real head."""

import os

import pytest
from sqlalchemy import inspect, select, text
from sqlalchemy.orm import Session

from bench.tenant_cluster import ONE_COLUMN, one_column_scripts
from clinicrecords.clinics.models import Clinic
from clinicrecords.clinics.services import CLINIC_SCHEMAS, create_clinic
from clinicrecords.db import embedded, make_engine, migrations
from clinicrecords.db.tenancy import schema_name
from clinicrecords.settings import read, var_dir


@pytest.fixture
def scale_engine(settings):
    if os.environ.get("DATABASE_URL"):
        pytest.fail("this test needs the embedded PostgreSQL (it makes a database of its own)")
    settings = dict(settings, **{"database.name": "clinicrecords_test_tenant_scale"})
    embedded.drop_database(var_dir(read(settings)), settings["database.name"])
    engine = make_engine(read(settings))
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    yield engine
    engine.dispose()


def test_a_new_revision_reaches_every_clinic_schema_and_is_recorded(scale_engine):
    with Session(scale_engine) as db, db.begin():
        clinics = [create_clinic(db, f"Scale {n}").id for n in range(5)]
    with one_column_scripts() as location:  # the throwaway revision bench.tenants migrates every schema through
        assert set(migrations.clinics_behind(scale_engine, CLINIC_SCHEMAS, script_location=location)) == set(clinics)
        moved = migrations.migrate_all(scale_engine, CLINIC_SCHEMAS, workers=2, script_location=location)
        assert moved == len(clinics)

        with scale_engine.connect() as connection:
            recorded = dict(connection.execute(select(Clinic.id, Clinic.schema_revision)).all())
            columns = {clinic_id: [c["name"] for c in inspect(connection).get_columns("patients",
                                                                                        schema_name(clinic_id))]
                       for clinic_id in clinics}
        assert {recorded[clinic_id] for clinic_id in clinics} == {ONE_COLUMN}
        assert all("bench_note" in names for names in columns.values())
        assert migrations.migrate_all(scale_engine, CLINIC_SCHEMAS, script_location=location) == 0
        assert migrations.clinics_behind(scale_engine, CLINIC_SCHEMAS, script_location=location) == []


def _backend_pid(engine):
    with engine.connect() as connection:
        return connection.execute(text("SELECT pg_backend_pid()")).scalar()


def test_a_pooled_connection_is_replaced_after_its_allowed_number_of_uses(settings, app):
    engine = make_engine(read(dict(settings, **{"database.pool_max_uses": "3"})), pool_size=1, max_overflow=0)
    try:
        first = [_backend_pid(engine) for _ in range(3)]
        second = [_backend_pid(engine) for _ in range(3)]
    finally:
        engine.dispose()
    assert len(set(first)) == 1 and len(set(second)) == 1
    assert first[0] != second[0]


def test_the_shipped_settings_bound_pooled_connections_by_age_and_by_uses(settings):
    from pyramid.paster import get_appsettings

    for ini in ("development.ini", "production.ini", "testing.ini"):
        shipped = get_appsettings(str(migrations.ALEMBIC_DIR.parent / ini), "main")
        assert 0 < int(shipped["database.pool_recycle"]) <= 600
        assert 0 < int(shipped["database.pool_max_uses"]) <= 1000
