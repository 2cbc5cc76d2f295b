"""A clinic's indexes are paid once per clinic (docs/performance.md, "Tenant scale"): the single-column index on
coverages.patient_id is gone, because the (patient_id, payer_id) unique constraint's index serves its queries."""

import uuid

import pytest
from sqlalchemy import select, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session

from bench.tenant_relations import indexes
from clinicrecords.clinics.services import CLINIC_SCHEMAS, create_clinic, open_clinic
from clinicrecords.db import migrations
from clinicrecords.db.tenancy import schema_name
from clinicrecords.insurance.models import Coverage
from tests.platform.test_list_indexes import _tenant_to
from tests.platform.test_migrations import _catalog, _make_clinic_at_base

PATIENTS, PAYERS = 1000, 3


def _coverage_indexes(connection, schema):
    return sorted(index["index"] for index in indexes(connection, schema) if index["table"] == "coverages")


def _plan(db, statement, **params):
    return "\n".join(db.execute(text(f"EXPLAIN {statement}"), params).scalars())


@pytest.mark.commits  # migrate_all's worker processes reach the clinic schemas on connections of their own
def test_the_drop_leaves_a_migrated_schema_like_a_new_one_and_its_downgrade_brings_the_index_back(engine):
    migrated = schema_name(_make_clinic_at_base(engine))
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    with Session(engine) as db, db.begin():
        built = schema_name(create_clinic(db, "Built").id)
    at_head = ["ix_coverages_created_at_id", "ix_coverages_updated_at", "pk_coverages", "uq_coverages_patient_id"]
    with engine.connect() as connection:
        assert _coverage_indexes(connection, migrated) == _coverage_indexes(connection, built) == at_head

    _tenant_to(engine, migrated, "t37w_care_provider_deletions", downgrade=True)
    with engine.connect() as connection:
        assert _coverage_indexes(connection, migrated) == sorted([*at_head, "ix_coverages_patient_id"])

    _tenant_to(engine, migrated, "head")
    assert _catalog(engine, migrated) == _catalog(engine, built)


@pytest.mark.commits  # a clinic of its own, created and seeded as the operator path does
def test_a_patients_coverages_and_the_foreign_keys_lookups_use_the_unique_constraints_index(engine):
    """A few thousand coverages, ANALYZEd, so the planner prefers an index to reading the table."""
    with Session(engine) as db, db.begin():
        clinic_id = create_clinic(db, "Coverages").id
    with Session(engine) as db, db.begin():
        open_clinic(db, clinic_id)
        db.execute(text("INSERT INTO patients (id, given_name, family_name, restricted) "
                        "SELECT gen_random_uuid(), 'Ada', 'Patient ' || n, false FROM generate_series(1, :n) n"),
                   {"n": PATIENTS})
        db.execute(text("INSERT INTO payers (id, display_name, search_name, primary_payer_id, coverage_types, "
                        "operating_states, enabled) SELECT gen_random_uuid(), 'Payer ' || n, 'payer ' || n, "
                        "'P' || n, '[]', '[]', true FROM generate_series(1, :n) n"), {"n": PAYERS})
        db.execute(text("INSERT INTO coverages (id, patient_id, payer_id, member_id, subscriber_relationship, "
                        "confirmation_status, coverage_active) SELECT gen_random_uuid(), p.id, y.id, 'M', 'self', "
                        "'unconfirmed', false FROM patients p CROSS JOIN payers y"))
        db.execute(text("ANALYZE coverages"))
        patient_id = db.scalar(text("SELECT id FROM patients LIMIT 1"))
        listed = select(Coverage).where(Coverage.patient_id == patient_id) \
            .order_by(Coverage.created_at, Coverage.id).limit(51)
        a_patients_list = _plan(db, str(listed.compile(dialect=postgresql.dialect(),
                                                         compile_kwargs={"literal_binds": True})))
        # What PostgreSQL's foreign-key trigger runs for each deleted patient row (a clinic's restore).
        key_lookup = _plan(db, "SELECT 1 FROM ONLY coverages x WHERE CAST(:id AS uuid) = patient_id "
                               "FOR KEY SHARE OF x", id=str(uuid.uuid4()))
        db.rollback()

    for plan in (a_patients_list, key_lookup):
        assert "uq_coverages_patient_id" in plan and "Seq Scan" not in plan, plan
