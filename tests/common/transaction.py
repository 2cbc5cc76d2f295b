"""The tests' outer transaction: one connection per test module, a savepoint per test, all rolled back."""

import contextlib

from sqlalchemy import text

from clinicrecords.db import joined


class OuterTransaction:
    def __init__(self, engine):
        self.engine = engine

    def __enter__(self):
        self.connection = self.engine.connect()
        self.transaction = self.connection.begin()
        # A module's transaction may rest between tests longer than the service's idle limit allows.
        self.connection.execute(text("SET LOCAL idle_in_transaction_session_timeout = 0"))
        return self

    def __exit__(self, *exc):
        joined.leave()
        self.transaction.rollback()
        joined.release(self.connection)
        self.connection.close()

    @contextlib.contextmanager
    def joined(self):
        """Every connection of the application's engines works inside this transaction meanwhile."""
        joined.join(self.connection)
        try:
            yield self
        finally:
            joined.leave()

    @contextlib.contextmanager
    def savepoint(self):
        """One test: joined, and whatever it wrote rolled back at the end."""
        savepoint = self.connection.begin_nested()
        try:
            with self.joined():
                yield self
        finally:
            if savepoint.is_active:
                savepoint.rollback()
