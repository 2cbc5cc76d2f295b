"""identity: accounts, sessions, memberships, one invitations table and the one record of terms acceptance

Revision ID: c33i_identity
Revises: c33m_mail_outbox

The identity context takes the portal's people tables (docs/decisions/0087-identity-context.md), moving every row:

- `portal_accounts`, `portal_login_failures`, `portal_sessions` are renamed `accounts`, `login_failures`,
  `sessions` (their constraints and indexes, and the foreign keys naming them, renamed alike); accounts get
  `email_verified_at`, set to the migration's time for every existing account (they count as verified).
- `clinic_staff.role` becomes `roles` (an array: admin, clinician or both); each member's one role is its
  roles.
- `workspace_invitations` and `clinic_staff_invitations` become one `invitations` table (kind, target,
  roles, token hash, expiry, invited by, accepted or cancelled), ids, hashes and times kept.
- `terms_acceptances` is the one record of acceptance: it gains `accepted_by_name` (an operator's recording:
  the rows without a member are "operator") and `reference`; a workspace whose `terms_accepted` flag an
  operator set without any acceptance row gets one (version 2026-01, the text shipped at this revision,
  accepted by "operator", at the migration's time); then `workspaces.terms_accepted` is dropped: the API's
  reach reads the record. A change to it moves the reach version (the key cache), as a change to a workspace
  did.

The downgrade restores the former tables; a staff member with both roles keeps the first (admin), and the
acceptance rows added for flags are kept as the flag.
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c33i_identity'
down_revision = 'c33m_mail_outbox'
branch_labels = None
depends_on = None

RENAMED = (('portal_accounts', 'accounts'), ('portal_login_failures', 'login_failures'),
           ('portal_sessions', 'sessions'))
TERMS_VERSION_SHIPPED = '2026-01'
STAFF_ROLE_SETS = "CAST(roles AS text[]) IN ('{admin}', '{clinician}', '{admin,clinician}')"
WORKSPACE_ROLE_SETS = "CAST(roles AS text[]) IN ('{owner}', '{developer}')"


def _rename_names(old, new):
    """Every constraint and index of the control schema whose name contains `old` is renamed with `new`."""
    op.execute(f"""
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT c.conname, t.relname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
             JOIN pg_namespace n ON n.oid = t.relnamespace
             WHERE n.nspname = 'control' AND c.conname LIKE '%{old}%' LOOP
        EXECUTE format('ALTER TABLE control.%I RENAME CONSTRAINT %I TO %I', r.relname, r.conname,
                       replace(r.conname, '{old}', '{new}'));
    END LOOP;
    FOR r IN SELECT i.relname FROM pg_class i JOIN pg_namespace n ON n.oid = i.relnamespace
             WHERE n.nspname = 'control' AND i.relkind = 'i' AND i.relname LIKE '%{old}%' LOOP
        EXECUTE format('ALTER INDEX control.%I RENAME TO %I', r.relname, replace(r.relname, '{old}', '{new}'));
    END LOOP;
END
$$""")


def upgrade():
    for old, new in RENAMED:
        op.rename_table(old, new, schema='control')
        _rename_names(old, new)
    op.add_column('accounts', sa.Column('email_verified_at', sa.DateTime(timezone=True), nullable=True),
                  schema='control')
    op.execute("UPDATE control.accounts SET email_verified_at = now()")

    op.add_column('clinic_staff', sa.Column('roles', postgresql.ARRAY(sa.String(length=16)), nullable=True),
                  schema='control')
    op.execute("UPDATE control.clinic_staff SET roles = ARRAY[role]")
    op.alter_column('clinic_staff', 'roles', nullable=False, schema='control')
    op.drop_constraint('ck_clinic_staff_role', 'clinic_staff', schema='control')
    op.drop_column('clinic_staff', 'role', schema='control')
    op.create_check_constraint(op.f('ck_clinic_staff_roles'), 'clinic_staff', STAFF_ROLE_SETS, schema='control')

    op.create_table('invitations',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('workspace_id', sa.Uuid(), nullable=True),
    sa.Column('clinic_id', sa.Uuid(), nullable=True),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('roles', postgresql.ARRAY(sa.String(length=16)), nullable=False),
    sa.Column('token_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('invited_by', sa.Uuid(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('accepted_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('cancelled_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint(f"(kind = 'workspace' AND workspace_id IS NOT NULL AND clinic_id IS NULL AND "
                       f"{WORKSPACE_ROLE_SETS}) OR (kind = 'clinic' AND clinic_id IS NOT NULL AND "
                       f"workspace_id IS NULL AND {STAFF_ROLE_SETS})", name=op.f('ck_invitations_kind_target_roles')),
    sa.ForeignKeyConstraint(['clinic_id'], ['control.clinics.id'], name=op.f('fk_invitations_clinic_id_clinics')),
    sa.ForeignKeyConstraint(['invited_by'], ['control.accounts.id'], name=op.f('fk_invitations_invited_by_accounts')),
    sa.ForeignKeyConstraint(['workspace_id'], ['control.workspaces.id'],
                            name=op.f('fk_invitations_workspace_id_workspaces')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_invitations')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_invitations_token_hash')),
    schema='control'
    )
    op.create_index(op.f('ix_control_invitations_clinic_id'), 'invitations', ['clinic_id'], unique=False,
                    schema='control')
    op.create_index(op.f('ix_control_invitations_workspace_id'), 'invitations', ['workspace_id'], unique=False,
                    schema='control')
    op.execute("""
INSERT INTO control.invitations (id, kind, workspace_id, email, roles, token_hash, invited_by, created_at,
                                 expires_at, accepted_at)
SELECT id, 'workspace', workspace_id, email, ARRAY[role], token_hash, invited_by, created_at, expires_at, accepted_at
FROM control.workspace_invitations""")
    op.execute("""
INSERT INTO control.invitations (id, kind, clinic_id, email, roles, token_hash, invited_by, created_at,
                                 expires_at, accepted_at)
SELECT id, 'clinic', clinic_id, email, ARRAY[role], token_hash, invited_by, created_at, expires_at, accepted_at
FROM control.clinic_staff_invitations""")
    op.drop_table('workspace_invitations', schema='control')
    op.drop_table('clinic_staff_invitations', schema='control')

    op.add_column('terms_acceptances', sa.Column('accepted_by_name', sa.String(length=200), nullable=True),
                  schema='control')
    op.add_column('terms_acceptances', sa.Column('reference', sa.String(length=500), nullable=True),
                  schema='control')
    op.execute("UPDATE control.terms_acceptances SET accepted_by_name = 'operator' WHERE account_id IS NULL")
    op.execute(f"""
INSERT INTO control.terms_acceptances (id, workspace_id, version, accepted_by_name, reference, accepted_at)
SELECT gen_random_uuid(), w.id, '{TERMS_VERSION_SHIPPED}', 'operator',
       'the workspace''s terms_accepted flag, set by an operator before the identity context', now()
FROM control.workspaces w
WHERE w.terms_accepted AND NOT EXISTS (SELECT 1 FROM control.terms_acceptances a WHERE a.workspace_id = w.id)""")
    op.create_check_constraint(op.f('ck_terms_acceptances_accepted_by'), 'terms_acceptances',
                               '(account_id IS NULL) <> (accepted_by_name IS NULL)', schema='control')
    op.drop_column('workspaces', 'terms_accepted', schema='control')
    op.execute("""
CREATE TRIGGER bump_reach_version AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE
ON control.terms_acceptances FOR EACH STATEMENT EXECUTE FUNCTION control.bump_reach_version()""")


def downgrade():
    op.execute("DROP TRIGGER bump_reach_version ON control.terms_acceptances")
    op.add_column('workspaces', sa.Column('terms_accepted', sa.Boolean(), server_default=sa.false(),
                                          nullable=False), schema='control')
    op.alter_column('workspaces', 'terms_accepted', server_default=None, schema='control')
    op.execute("""
UPDATE control.workspaces w SET terms_accepted = true
WHERE EXISTS (SELECT 1 FROM control.terms_acceptances a WHERE a.workspace_id = w.id)""")
    op.execute("""
DELETE FROM control.terms_acceptances WHERE account_id IS NULL AND accepted_by_name IS DISTINCT FROM 'operator'""")
    op.drop_constraint('ck_terms_acceptances_accepted_by', 'terms_acceptances', schema='control')
    op.drop_column('terms_acceptances', 'reference', schema='control')
    op.drop_column('terms_acceptances', 'accepted_by_name', schema='control')

    for table, target, role in (('workspace_invitations', 'workspace', "('owner', 'developer')"),
                                ('clinic_staff_invitations', 'clinic', "('admin', 'clinician')")):
        referent = 'workspaces' if target == 'workspace' else 'clinics'
        op.create_table(table,
        sa.Column('id', sa.Uuid(), nullable=False),
        sa.Column(f'{target}_id', sa.Uuid(), nullable=False),
        sa.Column('email', sa.String(length=254), nullable=False),
        sa.Column('role', sa.String(length=16), nullable=False),
        sa.Column('token_hash', sa.LargeBinary(length=32), nullable=False),
        sa.Column('invited_by', sa.Uuid(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('accepted_at', sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(f"role IN {role}", name=op.f(f'ck_{table}_role')),
        sa.ForeignKeyConstraint([f'{target}_id'], [f'control.{referent}.id'],
                                name=op.f(f'fk_{table}_{target}_id_{referent}')),
        sa.ForeignKeyConstraint(['invited_by'], ['control.accounts.id'], name=op.f(f'fk_{table}_invited_by_accounts')),
        sa.PrimaryKeyConstraint('id', name=op.f(f'pk_{table}')),
        sa.UniqueConstraint('token_hash', name=op.f(f'uq_{table}_token_hash')),
        schema='control'
        )
        op.create_index(op.f(f'ix_control_{table}_{target}_id'), table, [f'{target}_id'], unique=False,
                        schema='control')
        # A cancelled invitation no longer opens: it goes back as an expired one.
        op.execute(f"""
INSERT INTO control.{table} (id, {target}_id, email, role, token_hash, invited_by, created_at, expires_at,
                             accepted_at)
SELECT id, {target}_id, email, roles[1], token_hash, invited_by, created_at,
       CASE WHEN cancelled_at IS NULL THEN expires_at ELSE least(expires_at, cancelled_at) END, accepted_at
FROM control.invitations WHERE kind = '{target}'""")
    op.drop_index(op.f('ix_control_invitations_workspace_id'), table_name='invitations', schema='control')
    op.drop_index(op.f('ix_control_invitations_clinic_id'), table_name='invitations', schema='control')
    op.drop_table('invitations', schema='control')

    op.add_column('clinic_staff', sa.Column('role', sa.String(length=16), nullable=True), schema='control')
    op.execute("UPDATE control.clinic_staff SET role = roles[1]")
    op.alter_column('clinic_staff', 'role', nullable=False, schema='control')
    op.drop_constraint('ck_clinic_staff_roles', 'clinic_staff', schema='control')
    op.drop_column('clinic_staff', 'roles', schema='control')
    op.create_check_constraint(op.f('ck_clinic_staff_role'), 'clinic_staff', "role IN ('admin', 'clinician')",
                               schema='control')

    op.drop_column('accounts', 'email_verified_at', schema='control')
    for old, new in RENAMED:
        op.rename_table(new, old, schema='control')
    for old, new in (('portal_sessions', 'sessions'), ('portal_login_failures', 'login_failures'),
                     ('portal_accounts', 'accounts')):
        _rename_names_back(old, new)


def _rename_names_back(old, new):
    """The names `_rename_names` changed, back: the ones ending in (or holding `_<new>_`) the new name."""
    op.execute(f"""
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT c.conname, t.relname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
             JOIN pg_namespace n ON n.oid = t.relnamespace
             WHERE n.nspname = 'control' AND (c.conname LIKE '%\\_{new}' OR c.conname LIKE '%\\_{new}\\_%')
               AND c.conname NOT LIKE '%{old}%' LOOP
        EXECUTE format('ALTER TABLE control.%I RENAME CONSTRAINT %I TO %I', r.relname, r.conname,
                       regexp_replace(r.conname, '_{new}(_|$)', '_{old}\\1'));
    END LOOP;
    FOR r IN SELECT i.relname FROM pg_class i JOIN pg_namespace n ON n.oid = i.relnamespace
             WHERE n.nspname = 'control' AND i.relkind = 'i'
               AND (i.relname LIKE '%\\_{new}' OR i.relname LIKE '%\\_{new}\\_%') AND i.relname NOT LIKE '%{old}%' LOOP
        EXECUTE format('ALTER INDEX control.%I RENAME TO %I', r.relname,
                       regexp_replace(r.relname, '_{new}(_|$)', '_{old}\\1'));
    END LOOP;
END
$$""")
