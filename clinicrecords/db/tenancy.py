"""Which schema holds a clinic's records, and how a session is pointed at it.

Schema names are built from a `uuid.UUID` only: a value that did not parse as a uuid can never reach SQL.

A clinic's tables are named without a schema in every statement; the transaction that reads or writes them runs
with `search_path` set to the clinic's schema, transaction-local (`SET LOCAL`). So one statement text serves
every clinic: SQLAlchemy compiles it once, psycopg parses and prepares it once per connection, and PostgreSQL's
plan cache, which keys a plan on the search_path it was made under, re-plans it for another clinic instead of
holding a statement per clinic (docs/decisions.md, "Statement text shared across clinics (issue 36)").

What keeps a statement in its clinic: the application role's default `search_path` is empty, so a tenant
statement in a transaction not pointed at a clinic fails ("relation does not exist") instead of reading one;
and a transaction-local setting ends with its transaction (COMMIT, ROLLBACK, a savepoint rolled back), so
neither a pooled connection nor a transaction pooler's server connection carries a clinic into the next.
"""

import re
import uuid

import psycopg
from psycopg import pq
from sqlalchemy import event
from sqlalchemy.orm import Session

from clinicrecords.db.reconnect import as_sqlalchemy_error

SCHEMA_PREFIX = "clinic_"
_SCHEMA = re.compile(SCHEMA_PREFIX + "[0-9a-f]{32}")
_TENANT_KEY = "tenant_schema"
_POINTED = "tenant_pointed"  # (the session's root transaction, schema) its connection was last pointed for


def schema_name(clinic_id):
    if not isinstance(clinic_id, uuid.UUID):
        raise TypeError(f"a clinic schema is named from a uuid.UUID, not {type(clinic_id).__name__}")
    return SCHEMA_PREFIX + clinic_id.hex


def translate_map(clinic_id):
    """For a statement run outside a pointed transaction (a write apart): the clinic's schema written into it."""
    return {None: schema_name(clinic_id)}


def bind_to_clinic(session, clinic_id):
    """Point this session's transactions at the clinic's schema: the one in progress, if any, and every one it
    begins from now on (on whatever connection)."""
    schema = schema_name(clinic_id)
    session.info[_TENANT_KEY] = schema
    if session.in_transaction():
        connection = session.connection()  # a connection taken just now was pointed by `_point_on_begin`
        if session.info.get(_POINTED) != (session.get_transaction(), schema):
            point_at(connection, schema)
            session.info[_POINTED] = (session.get_transaction(), schema)


def bound_schema(session):
    return session.info.get(_TENANT_KEY)


@event.listens_for(Session, "after_begin")
def _point_on_begin(session, transaction, connection):
    schema = session.info.get(_TENANT_KEY)
    session.info[_POINTED] = None
    if schema is not None:
        point_at(connection, schema)
        session.info[_POINTED] = (session.get_transaction(), schema)


def point_at(connection, schema):
    """Set the search_path of `connection`'s transaction (a SQLAlchemy Connection) to `schema`, for that
    transaction only.

    When the driver has not begun the transaction yet (the usual case: SQLAlchemy begins lazily, psycopg sends
    BEGIN with the first statement), BEGIN and the setting go in one message: the round trip BEGIN costs
    anyway. Inside a transaction already begun, the setting is one statement more."""
    driver = connection.connection.driver_connection
    if driver.autocommit:
        raise RuntimeError("a clinic's statements need a transaction: a connection in autocommit has no "
                           "transaction-local search_path")
    if not _SCHEMA.fullmatch(schema):
        raise ValueError(f"not a clinic schema: {schema!r}")
    setting = f'SET LOCAL search_path TO "{schema}"'  # a prefix and a uuid's hex digits: nothing to escape
    if driver.pgconn.transaction_status != pq.TransactionStatus.IDLE:
        connection.exec_driver_sql(setting)
        return
    message = f"{_begin(driver)}; {setting}"
    try:
        with driver.lock:
            result = driver.pgconn.exec_(message.encode())
        if result.status != pq.ExecStatus.COMMAND_OK:
            raise psycopg.errors.error_from_result(result, encoding="utf-8")
    except psycopg.Error as exc:
        raise as_sqlalchemy_error(connection, driver, message, None, exc) from exc


def _begin(driver):
    """psycopg's own BEGIN for this connection (its isolation level, read only, deferrable)."""
    parts = ["BEGIN"]
    if driver.isolation_level is not None:
        parts.append("ISOLATION LEVEL " + psycopg.IsolationLevel(driver.isolation_level).name.replace("_", " "))
    if driver.read_only is not None:
        parts.append("READ ONLY" if driver.read_only else "READ WRITE")
    if driver.deferrable is not None:
        parts.append("DEFERRABLE" if driver.deferrable else "NOT DEFERRABLE")
    return " ".join(parts)
