"""Traces (OpenTelemetry): off unless the standard `OTEL_*` variables configure an exporter.

One span per request, named by its method and route template (traversal has no route names for an
instrumentation to read); one child span per database statement (SQLAlchemy's cursor events, and the
messages `clinicrecords.db.tenancy` sends itself with `pgconn.send_query`), named by its SQL keyword; and a
task's span in the trace of the request that queued it (the trace context travels with the task,
`clinicrecords.tasks.add_task_envelope`). A span never carries a statement's text, a query string, a body, a
key, an email or a search term: only route templates, methods, statuses, SQL keywords and task names.
"""

import contextlib
import os
import weakref

from opentelemetry import propagate, trace
from sqlalchemy import event

from clinicrecords import tasks
from clinicrecords.db import tenancy

TRACE_CONTEXT = "_trace"
_state = {"tracer": None}
# The engines `install` was given: their statement listeners are added by `enable` and taken off by `disable`.
_engines = weakref.WeakSet()


def tracer():
    """The tracer when tracing is on, else None (what every hook asks first: off costs one lookup)."""
    return _state["tracer"]


def configured_by_environment(environ=os.environ):
    if environ.get("OTEL_SDK_DISABLED", "").lower() == "true" or environ.get("OTEL_TRACES_EXPORTER") == "none":
        return False
    return any(environ.get(name) for name in ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
                                               "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def provider_from_environment():
    """A TracerProvider exporting over OTLP/HTTP in batches, configured by the OTEL_* variables."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", "clinicrecords")})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider


def enable(provider):
    _state["tracer"] = provider.get_tracer("clinicrecords")
    for engine in _engines:
        watch_statements(engine)


def disable():
    _state["tracer"] = None
    for engine in _engines:
        unwatch_statements(engine)


def current_trace_id():
    if _state["tracer"] is None:
        return None
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None


# Requests --------------------------------------------------------------------------------------------------

def request_span(request, route, method):
    """A context manager for the request's span (None while tracing is off)."""
    found = _state["tracer"]
    if found is None:
        return None
    # A caller's traceparent is honoured; nothing else of its headers is read.
    parent = propagate.extract({"traceparent": request.headers.get("traceparent", "")}) \
        if "traceparent" in request.headers else None
    return found.start_as_current_span(f"{method} {route}", context=parent, kind=trace.SpanKind.SERVER,
                                       attributes={"http.request.method": method, "http.route": route})


# Database statements ---------------------------------------------------------------------------------------

def _keyword(statement):
    word = statement.lstrip().split(None, 1)
    return word[0].upper() if word else "?"


def _started(connection, cursor, statement, parameters, context, executemany):
    found = _state["tracer"]
    # Only within a traced request or task: a background thread's statements (the request log's writer)
    # would each be a trace of their own.
    if found is not None and trace.get_current_span().get_span_context().is_valid:
        keyword = _keyword(statement)
        span = found.start_span(keyword, kind=trace.SpanKind.CLIENT,
                                attributes={"db.system": "postgresql", "db.operation.name": keyword})
        connection.info.setdefault("observability.spans", []).append(span)


def _finished(connection, cursor, statement, parameters, context, executemany):
    spans = connection.info.get("observability.spans")
    if spans:
        spans.pop().end()


def _failed(context):
    spans = context.connection.info.get("observability.spans") if context.connection is not None else None
    if spans:
        span = spans.pop()
        span.set_status(trace.Status(trace.StatusCode.ERROR, type(context.original_exception).__name__))
        span.end()


_STATEMENT_LISTENERS = (("before_cursor_execute", _started), ("after_cursor_execute", _finished),
                        ("handle_error", _failed))


def watch_statements(engine):
    for name, listener in _STATEMENT_LISTENERS:
        if not event.contains(engine, name, listener):
            event.listen(engine, name, listener)


def unwatch_statements(engine):
    for name, listener in _STATEMENT_LISTENERS:
        if event.contains(engine, name, listener):
            event.remove(engine, name, listener)


_send = tenancy._send


def _traced_send(connection, driver, parts):
    found = _state["tracer"]
    if found is None or not trace.get_current_span().get_span_context().is_valid:
        return _send(connection, driver, parts)
    keywords = " ".join(_keyword(part) for part in parts)
    with found.start_as_current_span(keywords, kind=trace.SpanKind.CLIENT,
                                     attributes={"db.system": "postgresql", "db.operation.name": keywords}):
        return _send(connection, driver, parts)


# Tasks -----------------------------------------------------------------------------------------------------

def _pack():
    if _state["tracer"] is None or not trace.get_current_span().get_span_context().is_valid:
        return None
    carrier = {}
    propagate.inject(carrier)
    return carrier or None


@contextlib.contextmanager
def _unpack(carrier, name):
    found = _state["tracer"]
    if found is None:
        yield
        return
    with found.start_as_current_span(f"task {name}", context=propagate.extract(carrier),
                                     kind=trace.SpanKind.CONSUMER, attributes={"task.name": name}):
        yield


def install(engine):
    """The hooks, registered once per engine; they do nothing until `enable`. The statement listeners are on the
    engine only while tracing is: an engine with a connection listener of its own runs SQLAlchemy's event
    dispatch on every checkout, BEGIN and COMMIT, traced or not."""
    _engines.add(engine)
    if _state["tracer"] is not None:
        watch_statements(engine)
    tenancy._send = _traced_send
    tasks.add_task_envelope(TRACE_CONTEXT, _pack, _unpack)
