"""names without web addresses or key shapes: the rows that hold them cleaned

Revision ID: c_names_without_links
Revises: c_pending_sign_in_address

The names people type (workspaces', clinics', organizations' legal names, keys', passkeys') go into emails, and
the mail guard refuses a message holding a web address off the portal or something shaped like a key: a
workspace named "Acme https://acme.example" could invite no one. The forms now refuse such names; the rows
that already hold one are cleaned here, keeping every word: "://" becomes a space, "www." "www ",
"ehr_live_" "ehr live ", "whsec_" "whsec " (white space then collapsed). A name left empty takes a plain one.
Nothing to undo: the old text cannot be told apart from what was typed.
"""

from alembic import op
import sqlalchemy as sa

revision = 'c_names_without_links'
down_revision = 'c_pending_sign_in_address'
branch_labels = None
depends_on = None

# The rule of clinicrecords.mail.services.LINK_OR_KEY, in PostgreSQL's regular expressions (\m: a word's start).
HOLDS = r"://|\mwww\.|ehr_(live|test)_|whsec_"
# (table, column, the name a row left empty takes: None where the column may be empty)
NAMES = (
    ("workspaces", "name", "Workspace"),
    ("clinics", "name", "Clinic"),
    ("business_profiles", "legal_name", "Organization"),
    ("api_keys", "name", None),
    ("passkeys", "name", "Passkey"),
)


def _cleaned(column):
    text = f"regexp_replace({column}, '://', ' ', 'g')"
    text = rf"regexp_replace({text}, '\mwww\.', 'www ', 'gi')"
    text = rf"regexp_replace({text}, 'ehr_(live|test)_', 'ehr \1 ', 'gi')"
    text = f"regexp_replace({text}, 'whsec_', 'whsec ', 'gi')"
    return rf"NULLIF(btrim(regexp_replace({text}, '\s+', ' ', 'g')), '')"


def clean_names(connection):
    """Cleans every name holding a web address or a key's shape; {"table.column": rows cleaned}."""
    cleaned = {}
    for table, column, fallback in NAMES:
        value = _cleaned(column) if fallback is None else f"COALESCE({_cleaned(column)}, :fallback)"
        result = connection.execute(sa.text(
            f"UPDATE control.{table} SET {column} = {value} WHERE {column} ~* :holds"),
            {"holds": HOLDS, **({} if fallback is None else {"fallback": fallback})})
        cleaned[f"{table}.{column}"] = result.rowcount
    return cleaned


def upgrade():
    clean_names(op.get_bind())


def downgrade():
    pass
