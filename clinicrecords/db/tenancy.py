"""Which schema holds a clinic's records, and how a session is pointed at it.

Schema names are built from a `uuid.UUID` only: a value that did not parse as a uuid can never reach SQL.
"""

import uuid

from sqlalchemy import event
from sqlalchemy.orm import Session

SCHEMA_PREFIX = "clinic_"
_TENANT_KEY = "tenant_schema"


def schema_name(clinic_id):
    if not isinstance(clinic_id, uuid.UUID):
        raise TypeError(f"a clinic schema is named from a uuid.UUID, not {type(clinic_id).__name__}")
    return SCHEMA_PREFIX + clinic_id.hex


def translate_map(clinic_id):
    return {None: schema_name(clinic_id)}


def bind_to_clinic(session, clinic_id):
    """Map this session's tenant tables to the clinic's schema for the rest of its transaction.

    The map lives on the SQLAlchemy Connection, not on the database connection, so nothing survives into
    the pool; `_apply_tenant_map` re-applies it if the session begins on another connection.
    """
    session.info[_TENANT_KEY] = schema_name(clinic_id)
    if session.in_transaction():
        session.connection().execution_options(schema_translate_map=translate_map(clinic_id))


def bound_schema(session):
    return session.info.get(_TENANT_KEY)


@event.listens_for(Session, "after_begin")
def _apply_tenant_map(session, transaction, connection):
    schema = session.info.get(_TENANT_KEY)
    if schema is not None:
        connection.execution_options(schema_translate_map={None: schema})
