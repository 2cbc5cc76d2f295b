"""Tracebacks fit for a log: no value a request sent or a row held.

SQLAlchemy's engines are built with `hide_parameters=True` (clinicrecords.db), so a statement's error names
its SQL but not its bound values. PostgreSQL's own message can still carry them: a unique violation's DETAIL
reads `Key (email)=(ada@example.org) already exists`, and psycopg puts DETAIL into the exception's text. Here
a database error is written with its primary message only (and its SQL, which holds placeholders, never
values). The error views log unexpected exceptions through `value_free_traceback`; the shipped ini files'
log formatter (`clinicrecords.observability.logs.LogFormatter`) writes every other traceback a process logs
the same way.
"""

import traceback

import psycopg
from sqlalchemy.exc import StatementError


def _primary(error):
    diag = getattr(error, "diag", None)
    return (diag.message_primary if diag is not None else None) or type(error).__name__


def _message(exc):
    if isinstance(exc, psycopg.Error):
        return _primary(exc)
    if isinstance(exc, StatementError):
        orig = exc.orig
        what = (f"({type(orig).__module__}.{type(orig).__qualname__}) {_message(orig)}" if orig is not None
                else exc.args[0] if exc.args else "")
        return f"{what}\n[SQL: {exc.statement}]"
    return str(exc)


CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def _chain(exc):
    """(exception, what links it to the one before it, or None), the oldest first, as Python prints them."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if exc.__cause__ is not None:
            before, link = exc.__cause__, CAUSE
        elif exc.__context__ is not None and not exc.__suppress_context__:
            before, link = exc.__context__, CONTEXT
        else:
            before, link = None, None
        chain.append((exc, link if before is not None and id(before) not in seen else None))
        exc = before
    return chain[::-1]


def value_free_traceback(exc):
    """The traceback of `exc` and of the exceptions it came from, as Python prints it, but with each
    database error's message cut to its primary line."""
    parts = []
    for item, link in _chain(exc):
        if link:
            parts.append(link)
        parts.append("Traceback (most recent call last):\n")
        parts.extend(traceback.format_tb(item.__traceback__))
        parts.append(f"{type(item).__module__}.{type(item).__qualname__}: {_message(item)}\n")
    return "".join(parts).rstrip("\n")
