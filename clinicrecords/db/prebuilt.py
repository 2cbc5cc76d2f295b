"""Hot statements run on the request's own connection without SQLAlchemy's execution layer.

A `Prebuilt` is a Core statement (a SELECT, or an INSERT ... RETURNING) compiled once: a clinic's tables are
named without a schema, as in every other statement, and found through the search_path `bind_to_clinic` set
for the transaction (db/tenancy.py). The statement and the tenancy rule are the ones every other query uses;
only the per-execution work is gone (the execution context, the result's description objects: about three
quarters of the CPU of reading one allergy, docs/performance.md). It runs in the session's transaction, on the
connection the session is bound to. A tenant statement (the default) is refused on a session bound to no
clinic; `tenant=False` is for statements on the control schema only.

Only statements whose values need no processing by SQLAlchemy qualify, so that psycopg's own adaptation gives
exactly what SQLAlchemy would have: returned columns that need none (psycopg itself returns uuid, datetime,
date, bytes and, with the loaders SQLAlchemy set on the connection, decoded JSON), and parameters that need
none but booleans and the JSON ones named in `json=` (wrapped in psycopg's `Jsonb` here). The constructor
refuses any other.

Build one once, at import: a value written into the statement (`Allergy.entry != "legacy_text"`) is compiled
with it and sent on every execution, so request values must only ever be bind parameters left empty
(`bindparam("item_id")`), given to `first` or `all`.
"""

import collections

from psycopg.types.json import Jsonb
from sqlalchemy import Boolean
from sqlalchemy.dialects import postgresql

from clinicrecords.db.reconnect import as_sqlalchemy_error
from clinicrecords.db.tenancy import bound_schema

_DIALECT = postgresql.psycopg.dialect()


class Prebuilt:
    def __init__(self, statement, tenant=True, column_keys=None, json=()):
        self.statement = statement
        self.tenant = tenant
        self.column_keys = column_keys
        self.json = tuple(json)
        columns = list(statement.exported_columns)
        processed = [column.key for column in columns if _needs_processing(column.type, "result")]
        compiled = statement.compile(dialect=_DIALECT, column_keys=column_keys)
        processed += [bind.key for bind in compiled.binds.values()
                      if bind.key not in self.json and not isinstance(bind.type, Boolean)
                      and _needs_processing(bind.type, "bind")]
        if processed:
            raise TypeError(f"{processed} need SQLAlchemy's processing: run this statement with session.execute")
        self.row = collections.namedtuple("Row", [column.key for column in columns])
        self.text = compiled.string
        self.defaults = {name: value for name, value in compiled.params.items() if value is not None}

    def _cursor(self, session, params):
        if self.tenant and bound_schema(session) is None:
            raise RuntimeError("a tenant statement needs a session bound to a clinic (bind_to_clinic)")
        connection = session.connection()  # begins the session's transaction, pointed at its clinic
        params = {**self.defaults, **params}
        for name in self.json:
            params[name] = Jsonb(params[name])
        driver = connection.connection.driver_connection
        try:
            return driver.execute(self.text, params)
        except connection.dialect.loaded_dbapi.Error as exc:
            raise as_sqlalchemy_error(connection, driver, self.text, params, exc) from exc

    def first(self, session, **params):
        """The first row (attribute access by column key), or None."""
        found = self._cursor(session, params).fetchone()
        return None if found is None else self.row._make(found)

    def all(self, session, **params):
        return [self.row._make(found) for found in self._cursor(session, params).fetchall()]


def _needs_processing(type_, kind):
    impl = type_.dialect_impl(_DIALECT)
    try:
        if kind == "result":
            return impl.result_processor(_DIALECT, None) is not None
        return impl.bind_processor(_DIALECT) is not None
    except (TypeError, ValueError, LookupError, AttributeError, NotImplementedError):
        return True  # a type that decides from the driver's column type (Numeric) processes something
