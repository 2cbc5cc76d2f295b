"""The tenant-scale benchmark's own steps (`python -m bench.tenants`, docs/performance.md "Tenant scale") on a few
clinics in a database of their own: the catalog's size, `migrate` with every schema at head through the real
command, and one clinic dumped with pg_dump and restored into another, throwaway, cluster."""

import os

import pytest
from sqlalchemy.orm import Session

from bench.tenant_dump import dump_and_restore
from bench.tenant_relations import indexes, relations_by_kind
from bench.tenants import CATALOG_TABLES, admin_ini, catalog_size, migrate_noop
from clinicrecords.clinics.services import CLINIC_SCHEMAS, create_clinic, open_clinic
from clinicrecords.db import embedded, make_engine, migrations
from clinicrecords.db.tenancy import schema_name
from clinicrecords.patients.services import PatientService
from clinicrecords.settings import read, var_dir
from tests.conftest import TESTING_INI

# One per test process: pytest-xdist may run this module's tests in two processes at once.
DATABASE = f"clinicrecords_test_tenant_bench_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


@pytest.fixture(scope="module")
def bench_engine():
    """Two committed clinics (pg_dump and the command are other processes), the second with two patients."""
    from pyramid.paster import get_appsettings

    if os.environ.get("DATABASE_URL"):
        pytest.fail("this test needs the embedded PostgreSQL (it makes a database of its own)")
    settings = {**get_appsettings(TESTING_INI, "main"), "database.name": DATABASE}
    embedded.drop_database(var_dir(read(settings)), DATABASE)
    engine = make_engine(read(settings))
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    with Session(engine) as db, db.begin():
        clinics = [create_clinic(db, f"Bench {n}").id for n in range(2)]
    with Session(engine) as db, db.begin():
        open_clinic(db, clinics[1])
        for family in ("Lovelace", "Hopper"):
            PatientService(db).create({"given_name": "Ada", "family_name": family})
    yield engine, clinics
    engine.dispose()


def test_the_catalog_size_counts_every_schema_and_one_clinics_share(bench_engine):
    engine, clinics = bench_engine
    catalog = catalog_size(engine, clinics[1])

    one = catalog["one_clinic"]
    assert one["relations"] > 30 and one["attributes"] > one["relations"]
    assert catalog["rows"]["pg_class"] > 2 * one["relations"]  # both clinics' relations, and the control's
    assert set(catalog["rows"]) == set(catalog["mb"]) == set(CATALOG_TABLES)
    assert 0 < catalog["mb"]["pg_attribute"] < catalog["pg_catalog_mb"] < catalog["database_mb"]


# Every relation a new clinic's schema makes, by kind: each is a pg_class row (and catalog cache in every backend
# that touches it) per clinic, so a model or migration that adds one changes this pin on purpose.
RELATIONS_OF_A_CLINIC = {
    "tables": 35, "toast_tables": 18, "toast_indexes": 18, "sequences": 0, "views": 0, "primary_keys": 35,
    "unique_or_exclusion_indexes": 4, "unique_indexes": 2, "foreign_key_indexes": 12, "plain_indexes": 43,
    "in_schema": 131, "total": 167}


def test_a_new_clinics_relations_are_counted_by_kind(bench_engine):
    engine, clinics = bench_engine
    with engine.connect() as connection:
        counts = relations_by_kind(connection, schema_name(clinics[0]))
        found = indexes(connection, schema_name(clinics[0]))

    assert counts == RELATIONS_OF_A_CLINIC
    assert catalog_size(engine, clinics[0])["one_clinic"]["relations"] == counts["in_schema"]
    assert catalog_size(engine, clinics[0])["one_clinic"]["relations_by_kind"] == counts
    # The schema's own relations are its tables, sequences, views and indexes; TOAST lives in pg_toast.
    kinds = ("tables", "sequences", "views", "primary_keys", "unique_or_exclusion_indexes", "unique_indexes",
             "foreign_key_indexes", "plain_indexes")
    assert sum(counts[kind] for kind in kinds) == counts["in_schema"] == len(found) + counts["tables"]
    roles = {index["index"]: index["role"] for index in found}
    assert roles["pk_patients"] == "primary key"
    assert roles["uq_events_seq"] == "unique constraint"
    assert roles["ix_encounters_patient_id"] == "foreign key fk_encounters_patient_id_patients"
    assert roles["ix_patients_created_at_id"] == "plain"


def test_migrate_with_every_schema_at_head_moves_nothing_in_process_nor_through_the_command(bench_engine, tmp_path):
    engine, _ = bench_engine
    ini = admin_ini(tmp_path / "admin.ini", TESTING_INI, {"database.name": DATABASE})

    noop = migrate_noop(engine, ini, workers=1)

    assert noop["command_exit"] == 0, noop.get("command_stderr")
    assert noop["schemas_migrated"] == 0 and noop["command_schemas_migrated"] == 0
    assert noop["command_seconds"] > noop["seconds"] > 0


def test_one_clinic_is_dumped_and_restored_into_another_cluster_with_its_rows(bench_engine, tmp_path):
    engine, clinics = bench_engine
    folder = tmp_path / "copy"

    copy = dump_and_restore(engine, schema_name(clinics[1]), folder)

    assert copy["rows_match"] and copy["rows_source"] >= 2  # the two patients, at least
    assert copy["dump"]["bytes"] > 0 and copy["dump"]["pg_dump_max_rss_mb"] > 0
    # What a clinic's schema needs elsewhere: the role that owns it and a database; no control schema, no extension.
    assert copy["restore"]["prepared"] == [f"role {embedded.APP_ROLE}", "an empty database"]
    assert list(folder.iterdir()) == []  # the dump and the throwaway cluster are gone
