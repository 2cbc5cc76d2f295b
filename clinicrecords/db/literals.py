"""Values written into a statement's text, for the messages that carry several statements at once: the simple
query protocol takes no parameters. A request sends two such statements, its count with its BEGIN
(db/tenancy.py) and its audit row with its COMMIT (db/request_transaction.py).

psycopg's `ClientCursor.mogrify` binds any type through its adapters, at about 2.5 µs a value in this
process, and a request binds about twenty. The types those statements carry are written here directly, as
psycopg writes them; strings are quoted by libpq (PQescapeLiteral), with the connection's encoding and
settings; any other value still goes through psycopg's adapters."""

import datetime
import functools
import re
import uuid

from psycopg import pq
from psycopg.adapt import Transformer

# A named placeholder, or a doubled percent sign (a literal one).
_PLACEHOLDER = re.compile(r"%\((\w+)\)s|%%")


def bind(driver, query, params):
    """`query` (text with %(name)s placeholders, or psycopg.sql) with each placeholder replaced by its value
    in `params` as a literal, for psycopg connection `driver`."""
    texts, names = _template(query if isinstance(query, str) else query.as_string(driver))
    encoding = driver.info.encoding
    escape = pq.Escaping(driver.pgconn).escape_literal
    fallback = None
    parts = [texts[0]]
    for name, text in zip(names, texts[1:]):
        value = params[name]
        written = _written(value)
        if written is None:
            if type(value) is str and "\x00" not in value:  # psycopg refuses a NUL; libpq would cut it off
                written = escape(value.encode(encoding)).decode(encoding)
            else:
                fallback = fallback or Transformer.from_context(driver)
                written = fallback.as_literal(value).decode(encoding)
        parts.append(written)
        parts.append(text)
    return "".join(parts)


def _written(value):
    """The literal of a value of a type this module writes itself; None for a string or any other type (a
    subclass of one too: psycopg chooses how to write a value by its class)."""
    kind = type(value)
    if value is None:
        return "NULL"
    if kind is uuid.UUID:
        return f"'{value.hex}'::uuid"
    if kind is int:
        # A space before a minus sign: never "--", which starts a comment after a minus in the text.
        return str(value) if value >= 0 else f" {value}"
    if kind is bool:
        return "true" if value else "false"
    if kind is datetime.datetime:
        return f"'{value}'::{'timestamptz' if value.tzinfo is not None else 'timestamp'}"
    if kind is datetime.date:
        return f"'{value}'::date"
    return None


@functools.lru_cache(maxsize=64)
def _template(query):
    """(the texts between the placeholders, the placeholders' names in order); a %% stays in its text as %."""
    texts, names, current, start = [], [], "", 0
    for found in _PLACEHOLDER.finditer(query):
        current += query[start:found.start()]
        if found[1] is None:  # %%
            current += "%"
        else:
            texts.append(current)
            names.append(found[1])
            current = ""
        start = found.end()
    texts.append(current + query[start:])
    return tuple(texts), tuple(names)
