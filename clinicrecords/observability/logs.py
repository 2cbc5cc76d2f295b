"""The one log formatter of every process (the ini's `[formatter_plain]`): tracebacks without the values a
request sent or a row held (`clinicrecords.failures.value_free_traceback`), and, with `format = json`, one JSON
object per line.

A JSON line has `time`, `level`, `logger` and `message`; the fields a line carries (`extra=`, or a message
that is itself a JSON object, as the request log's is) at its top level; and, while a request or a task runs,
`request_id` and `trace_id`. Whatever a message says, an email address and an API key are cut from it
(`{email}`, `{key}`): the lines are written by many hands, and no line may carry either.
"""

import contextvars
import datetime
import json
import logging
import re

from clinicrecords.failures import value_free_traceback

JSON = "json"
# The request being answered (its X-Request-Id), set by the metrics tween for every line logged meanwhile.
REQUEST_ID = contextvars.ContextVar("clinicrecords_request_id", default=None)
_EMAIL = re.compile(r"[^\s@<>()\"',;:]+@[^\s@<>()\"',;:]+\.[A-Za-z]{2,}")
_KEY = re.compile(r"ehr_[A-Za-z0-9_]+", re.IGNORECASE)
# What every LogRecord has: anything else on a record was given with `extra=`.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


def scrubbed(text):
    return _KEY.sub("{key}", _EMAIL.sub("{email}", text))


def _trace_id():
    """The current span's trace id, when tracing is on (clinicrecords.observability.tracing)."""
    from clinicrecords.observability.tracing import current_trace_id

    return current_trace_id()


class LogFormatter(logging.Formatter):
    """`format = json`: a JSON object per line; any other format: as `logging.Formatter`. Either way, tracebacks
    are value-free and messages are scrubbed of emails and keys."""

    def __init__(self, fmt=None, datefmt=None, style="%", validate=True, **kwargs):
        self.json = fmt == JSON
        super().__init__("%(message)s" if self.json else fmt, datefmt, style, validate, **kwargs)

    def formatException(self, ei):
        return value_free_traceback(ei[1])

    def formatMessage(self, record):
        record.message = scrubbed(record.message)
        return super().formatMessage(record)

    def format(self, record):
        if not self.json:
            return super().format(record)
        message = scrubbed(record.getMessage())
        at = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
        line = {"time": at.isoformat(timespec="milliseconds"),
                "level": record.levelname, "logger": record.name, "message": message}
        prefix, fields = _json_object(message)
        if fields is not None:
            # "security event {...}": the object's fields at the top level (what `security_events.read_after`
            # reads back from the log stream), the words before it the message.
            line["message"] = fields.pop("message", None) or prefix or record.name.rpartition(".")[2]
            line.update(fields)
        line.update({name: scrubbed(value) if isinstance(value, str) else value
                     for name, value in vars(record).items() if name not in _STANDARD})
        request_id, trace_id = REQUEST_ID.get(), _trace_id()
        if request_id is not None:
            line.setdefault("request_id", request_id)
        if trace_id is not None:
            line.setdefault("trace_id", trace_id)
        if record.exc_info:
            line["traceback"] = scrubbed(self.formatException(record.exc_info))
        return json.dumps(line, default=str)


def _json_object(message):
    """(the words before it, the JSON object) a message ends with, or (None, None)."""
    start = message.find("{")
    if start < 0 or not message.endswith("}"):
        return None, None
    try:
        found = json.loads(message[start:])
    except ValueError:
        return None, None
    return (message[:start].strip(), found) if isinstance(found, dict) else (None, None)
