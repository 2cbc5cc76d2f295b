"""The SQL an engine sends while a block runs (the statements SQLAlchemy executes, not the driver's own)."""

import contextlib

from sqlalchemy import event


@contextlib.contextmanager
def statements(engine):
    seen = []

    def record(conn, cursor, statement, *args):
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)
