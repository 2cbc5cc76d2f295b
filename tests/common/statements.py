"""The SQL an engine sends while a block runs (the statements SQLAlchemy executes, not the driver's own)."""

import contextlib
import threading

from sqlalchemy import event


@contextlib.contextmanager
def statements(engine, this_thread_only=False):
    """`this_thread_only`: only what the calling thread sends (a request, and its mail task, run at once in
    tests), not what the request log's writer sends from its own thread meanwhile."""
    thread, seen = threading.get_ident(), []

    def record(conn, cursor, statement, *args):
        if not this_thread_only or threading.get_ident() == thread:
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)
