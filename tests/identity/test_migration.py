"""Revision c33i_identity moves the portal's people into the identity context's tables with no loss: a control
schema at c27 holding today's shapes (accounts, log-in failures, sessions and what they show once, workspace
members and invitations, clinic staff and their invitations, terms acceptances by a member and by an operator,
a workspace whose terms flag an operator set, the audit trail and connection requests naming accounts) is
upgraded, and each row is found where the identity context keeps it; the downgrade gives the old shapes back.
The migrated tables equal the models."""

import datetime
import uuid

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool

from clinicrecords.db import embedded, migrations
from clinicrecords.db.meta import ControlBase
from clinicrecords.settings import read, var_dir

BEFORE, REVISION = "c27_connections_list_index", "c33i_identity"
IDENTITY_TABLES = {"accounts", "login_failures", "sessions", "workspace_members", "clinic_staff", "invitations",
                   "terms_acceptances", "portal_one_time_reads", "portal_audit", "connection_requests"}
T0 = datetime.datetime(2026, 1, 5, 9, 30, tzinfo=datetime.UTC)


def at(minutes):
    return T0 + datetime.timedelta(minutes=minutes)


@pytest.fixture
def scratch_engine(settings):
    """A database of its own on the embedded server, for migrating the control schema from c27."""
    name = "clinicrecords_c33i_" + uuid.uuid4().hex[:8]
    url = embedded.database_url(var_dir(read(settings)), name)
    engine = create_engine(url, poolclass=NullPool)
    yield engine
    engine.dispose()
    embedded.drop_database(var_dir(read(settings)), name)


def _control_to(engine, revision, settings, downgrade=False):
    with engine.begin() as connection:
        connection.execute(text("CREATE SCHEMA IF NOT EXISTS control"))
        migrations.prepare_migration_transaction(connection, "control")
        config = migrations.alembic_config("control", connection, "control", settings=read(settings))
        (command.downgrade if downgrade else command.upgrade)(config, revision)


class Today:
    """The rows of today's shapes, by name, with their ids."""

    def __init__(self):
        self.clinic, self.sandbox = uuid.uuid4(), uuid.uuid4()
        self.member_accepted, self.operator_flag, self.no_terms = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
        self.dev, self.admin, self.clinician = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
        self.session, self.read = uuid.uuid4(), uuid.uuid4()
        self.ws_open, self.ws_accepted, self.staff_open = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
        self.by_member, self.by_operator = uuid.uuid4(), uuid.uuid4()
        self.failure, self.audit, self.connection_request = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()

    def insert(self, connection):
        run = lambda sql, **values: connection.execute(text(sql), values)  # noqa: E731
        for clinic_id, name in ((self.clinic, "Riverside"), (self.sandbox, "Acme sandbox")):
            run("INSERT INTO control.clinics (id, name, kind, currency) VALUES (:id, :name, 'clinic', 'GBP')",
                id=clinic_id, name=name)
        for workspace_id, accepted in ((self.member_accepted, True), (self.operator_flag, True),
                                       (self.no_terms, False)):
            run("INSERT INTO control.workspaces (id, name, verified, plan, terms_accepted, sandbox_clinic_id) "
                "VALUES (:id, 'Acme', true, 'paid', :accepted, :sandbox)", id=workspace_id, accepted=accepted,
                sandbox=self.sandbox if workspace_id == self.member_accepted else None)
        for account_id, email, minutes in ((self.dev, "dev@acme.example", 1), (self.admin, "admin@clinic.example", 2),
                                           (self.clinician, "nurse@clinic.example", 3)):
            run("INSERT INTO control.portal_accounts (id, email, password_hash, created_at, password_changed_at) "
                "VALUES (:id, :email, :hash, :created, :changed)", id=account_id, email=email,
                hash=f"$argon2id$hash-of-{email}", created=at(minutes), changed=at(minutes + 10))
        run("INSERT INTO control.portal_login_failures (id, email, address, at) "
            "VALUES (:id, 'dev@acme.example', '192.0.2.7', :at)", id=self.failure, at=at(20))
        run("INSERT INTO control.portal_sessions (id, token_hash, account_id, csrf_token, created_at, last_seen_at) "
            "VALUES (:id, :hash, :account, 'csrf-1', :created, :seen)", id=self.session, hash=b"s" * 32,
            account=self.dev, created=at(30), seen=at(31))
        run("INSERT INTO control.portal_one_time_reads (id, session_id, kind, sealed, expires_at) "
            "VALUES (:id, :session, 'invitation', :sealed, :expires)", id=self.read, session=self.session,
            sealed=b"sealed", expires=at(40))
        run("INSERT INTO control.workspace_members (workspace_id, account_id, role, created_at) "
            "VALUES (:ws, :account, 'owner', :created)", ws=self.member_accepted, account=self.dev, created=at(5))
        for invitation_id, role, token, accepted in ((self.ws_open, "developer", b"a" * 32, None),
                                                     (self.ws_accepted, "owner", b"b" * 32, at(52))):
            run("INSERT INTO control.workspace_invitations (id, workspace_id, email, role, token_hash, invited_by, "
                "created_at, expires_at, accepted_at) VALUES (:id, :ws, :email, :role, :token, :by, :created, "
                ":expires, :accepted)", id=invitation_id, ws=self.member_accepted, email=f"{role}@acme.example",
                role=role, token=token, by=self.dev, created=at(50), expires=at(50 + 7 * 1440), accepted=accepted)
        for account_id, role, minutes in ((self.admin, "admin", 6), (self.clinician, "clinician", 7)):
            run("INSERT INTO control.clinic_staff (clinic_id, account_id, role, created_at) "
                "VALUES (:clinic, :account, :role, :created)", clinic=self.clinic, account=account_id, role=role,
                created=at(minutes))
        run("INSERT INTO control.clinic_staff_invitations (id, clinic_id, email, role, token_hash, invited_by, "
            "created_at, expires_at) VALUES (:id, :clinic, 'new@clinic.example', 'clinician', :token, :by, "
            ":created, :expires)", id=self.staff_open, clinic=self.clinic, token=b"c" * 32, by=self.admin,
            created=at(60), expires=at(60 + 7 * 1440))
        for acceptance_id, version, account_id, minutes in ((self.by_operator, "2025-07", None, 70),
                                                            (self.by_member, "2026-01", self.dev, 80)):
            run("INSERT INTO control.terms_acceptances (id, workspace_id, version, account_id, accepted_at) "
                "VALUES (:id, :ws, :version, :account, :at)", id=acceptance_id, ws=self.member_accepted,
                version=version, account=account_id, at=at(minutes))
        run("INSERT INTO control.portal_audit (id, at, account_id, workspace_id, action, target, details) "
            "VALUES (:id, :at, :account, :ws, 'terms.accepted', '2026-01', '{}')", id=self.audit, at=at(80),
            account=self.dev, ws=self.member_accepted)
        run("INSERT INTO control.connection_requests (id, workspace_id, clinic_id, scopes, status, requested_by, "
            "requested_at) VALUES (:id, :ws, :clinic, ARRAY['patients:read'], 'pending', :by, :at)",
            id=self.connection_request, ws=self.member_accepted, clinic=self.clinic, by=self.dev, at=at(90))


def _rows(connection, sql, **values):
    return [tuple(row) for row in connection.execute(text(sql), values).all()]


def test_every_row_of_todays_shapes_arrives_in_the_identity_tables(scratch_engine, settings):
    _control_to(scratch_engine, BEFORE, settings)
    today = Today()
    with scratch_engine.begin() as connection:
        today.insert(connection)
    _control_to(scratch_engine, REVISION, settings)

    with scratch_engine.connect() as connection:
        migrated_at = connection.scalar(text("SELECT now()"))
        accounts = _rows(connection, "SELECT id, email, password_hash, created_at, password_changed_at, "
                                     "email_verified_at FROM control.accounts ORDER BY created_at")
        assert [row[:5] for row in accounts] == [
            (today.dev, "dev@acme.example", "$argon2id$hash-of-dev@acme.example", at(1), at(11)),
            (today.admin, "admin@clinic.example", "$argon2id$hash-of-admin@clinic.example", at(2), at(12)),
            (today.clinician, "nurse@clinic.example", "$argon2id$hash-of-nurse@clinic.example", at(3), at(13))]
        # Accounts that exist today count as verified, from the migration.
        assert all(row[5] is not None and row[5] <= migrated_at for row in accounts)
        assert _rows(connection, "SELECT id, email, address, at FROM control.login_failures") == [
            (today.failure, "dev@acme.example", "192.0.2.7", at(20))]
        assert _rows(connection, "SELECT id, token_hash, account_id, csrf_token, created_at, last_seen_at, "
                                 "ended_at FROM control.sessions") == [
            (today.session, b"s" * 32, today.dev, "csrf-1", at(30), at(31), None)]
        assert _rows(connection, "SELECT id, session_id FROM control.portal_one_time_reads") == [
            (today.read, today.session)]
        assert _rows(connection, "SELECT workspace_id, account_id, role, created_at FROM control.workspace_members"
                     ) == [(today.member_accepted, today.dev, "owner", at(5))]
        assert _rows(connection, "SELECT clinic_id, account_id, roles, created_at FROM control.clinic_staff "
                                 "ORDER BY created_at") == [(today.clinic, today.admin, ["admin"], at(6)),
                                                            (today.clinic, today.clinician, ["clinician"], at(7))]
        assert _rows(connection, "SELECT id, kind, workspace_id, clinic_id, email, roles, token_hash, invited_by, "
                                 "created_at, expires_at, accepted_at, cancelled_at FROM control.invitations "
                                 "ORDER BY created_at, email") == [
            (today.ws_open, "workspace", today.member_accepted, None, "developer@acme.example", ["developer"],
             b"a" * 32, today.dev, at(50), at(50 + 7 * 1440), None, None),
            (today.ws_accepted, "workspace", today.member_accepted, None, "owner@acme.example", ["owner"],
             b"b" * 32, today.dev, at(50), at(50 + 7 * 1440), at(52), None),
            (today.staff_open, "clinic", None, today.clinic, "new@clinic.example", ["clinician"], b"c" * 32,
             today.admin, at(60), at(60 + 7 * 1440), None, None)]
        acceptances = _rows(connection, "SELECT id, workspace_id, version, account_id, accepted_by_name, reference, "
                                        "accepted_at FROM control.terms_acceptances ORDER BY accepted_at")
        # Existing acceptances keep their times; one without a member was an operator's.
        assert acceptances[:2] == [
            (today.by_operator, today.member_accepted, "2025-07", None, "operator", None, at(70)),
            (today.by_member, today.member_accepted, "2026-01", today.dev, None, None, at(80))]
        # The flag an operator set with no acceptance behind it becomes an operator's acceptance of the
        # version shipped at this revision; a workspace without the flag gets none.
        (flag,) = acceptances[2:]
        assert flag[1:5] == (today.operator_flag, "2026-01", None, "operator") and "terms_accepted" in flag[5]
        assert flag[6] <= migrated_at
        assert "terms_accepted" not in {c["name"] for c in inspect(connection).get_columns("workspaces",
                                                                                             schema="control")}
        assert _rows(connection, "SELECT id, account_id FROM control.portal_audit") == [(today.audit, today.dev)]
        assert _rows(connection, "SELECT id, requested_by FROM control.connection_requests") == [
            (today.connection_request, today.dev)]
        tables = set(inspect(connection).get_table_names(schema="control"))
        assert not tables & {"portal_accounts", "portal_login_failures", "portal_sessions", "workspace_invitations",
                             "clinic_staff_invitations"}
        # Constraints and indexes are named after the tables they now belong to.
        assert _rows(connection, "SELECT conname FROM pg_constraint WHERE conname ~ 'portal_(accounts|sessions|"
                                 "login_failures)' UNION ALL SELECT relname FROM pg_class WHERE relname ~ "
                                 "'portal_(accounts|sessions|login_failures)'") == []

    _control_to(scratch_engine, BEFORE, settings, downgrade=True)
    with scratch_engine.connect() as connection:
        assert _rows(connection, "SELECT id, email FROM control.portal_accounts ORDER BY created_at") == [
            (today.dev, "dev@acme.example"), (today.admin, "admin@clinic.example"),
            (today.clinician, "nurse@clinic.example")]
        assert _rows(connection, "SELECT account_id, role FROM control.clinic_staff ORDER BY created_at") == [
            (today.admin, "admin"), (today.clinician, "clinician")]
        assert _rows(connection, "SELECT id, role, accepted_at FROM control.workspace_invitations ORDER BY email"
                     ) == [(today.ws_open, "developer", None), (today.ws_accepted, "owner", at(52))]
        assert _rows(connection, "SELECT id, role FROM control.clinic_staff_invitations") == [
            (today.staff_open, "clinician")]
        assert dict(_rows(connection, "SELECT id, terms_accepted FROM control.workspaces")) == {
            today.member_accepted: True, today.operator_flag: True, today.no_terms: False}
        assert _rows(connection, "SELECT id FROM control.portal_sessions") == [(today.session,)]
        assert _rows(connection, "SELECT id FROM control.portal_login_failures") == [(today.failure,)]
        assert _rows(connection, "SELECT conname FROM pg_constraint WHERE conname ~ '_(accounts|sessions|"
                                 "login_failures)(_|$)' AND conname !~ 'portal_(accounts|sessions|login_failures)'"
                     ) == []
    _control_to(scratch_engine, REVISION, settings)  # and up again


def test_the_migrated_identity_tables_equal_the_models(engine):
    def include(obj, name, type_, reflected, compare_to):
        table = obj if type_ == "table" else getattr(obj, "table", None)
        return table is not None and table.name in IDENTITY_TABLES

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={
            "include_schemas": True, "include_object": include, "compare_type": True,
            "include_name": lambda name, type_, parent: type_ != "schema" or name == "control"})
        assert compare_metadata(context, ControlBase.metadata) == []
