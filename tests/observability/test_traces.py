"""Traces: one span per request named by its route template, its statements as child spans, a task's span in
the trace of the request that queued it; no query string, body, key, email or search term in any span.
Exported through the SDK's in-memory exporter."""

import io
import json
import logging

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from clinicrecords.access.keys import parse_key
from clinicrecords.observability import tracing
from clinicrecords.observability.logs import LogFormatter
from clinicrecords.patients.schemas import PatientCreate
from tests.common.clinical import sandbox
from tests.events.support import Receiver, emit_events
from tests.exports.conftest import queued_app, run_queued  # noqa: F401 (queued_app: a fixture)
from tests.exports.flow import kick_off


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider)
    yield exporter
    tracing.disable()
    provider.shutdown()


def test_a_request_is_one_span_named_by_its_route_with_its_statements_below(testapp, connected, spans):
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers)
    finished = spans.get_finished_spans()
    [server] = [span for span in finished if span.kind == SpanKind.SERVER]
    assert server.name == "GET /v1/clinics/{clinic_id}/patients"
    assert server.attributes["http.response.status_code"] == 200
    statements = [span for span in finished if span.kind == SpanKind.CLIENT]
    assert statements and all(span.context.trace_id == server.context.trace_id for span in statements)
    assert {span.parent.span_id for span in statements} == {server.context.span_id}
    assert {span.attributes["db.system"] for span in statements} == {"postgresql"}
    assert any("SELECT" in span.name for span in statements)
    # What the clinic's transaction sends itself with `pgconn.send_query` (its BEGIN, the search path, the
    # count): one span named by the keywords of the statements sent together, below the request's too.
    assert any(span.name.startswith("BEGIN ") and "SET" in span.name.split() for span in statements), \
        [span.name for span in statements]


def test_a_caller_s_traceparent_is_the_request_s_parent(testapp, spans):
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    testapp.get("/healthz", headers={"traceparent": parent})
    [server] = [span for span in spans.get_finished_spans() if span.kind == SpanKind.SERVER]
    assert format(server.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"


def test_a_webhook_delivery_task_is_in_the_trace_of_the_work_that_queued_it(world, spans):
    """The trace context travels with every task (`clinicrecords.tasks` envelopes): here an event's delivery,
    queued when the transaction that recorded it commits inside a span, as a request's does."""
    clinic_id = world.clinic()
    with Receiver(default=204) as receiver:
        world.webhook(clinic_id=clinic_id, url=receiver.url)
        with tracing.tracer().start_as_current_span("POST /v1/clinics/{clinic_id}/inventory/items",
                                                    kind=SpanKind.SERVER) as queuing:
            emit_events(world, clinic_id)
        assert receiver.requests
    finished = spans.get_finished_spans()
    [task] = [span for span in finished if span.kind == SpanKind.CONSUMER]
    assert task.name.startswith("task clinicrecords.events.")
    assert task.context.trace_id == queuing.context.trace_id
    assert task.parent.span_id == queuing.context.span_id
    statements = [span for span in finished if span.kind == SpanKind.CLIENT and span.parent.span_id ==
                  task.context.span_id]
    assert statements  # the task's own statements are below its span


def test_an_export_task_is_in_the_trace_of_the_kickoff_request_that_queued_it(queued_app, world, spans):  # noqa: F811
    """Through HTTP, with a real queue a worker reads later: the trace context reaches the task only in its
    envelope."""
    clinic_id, key = sandbox(world)
    kick_off(queued_app, clinic_id, key, "?_type=Patient")
    [kickoff] = [span for span in spans.get_finished_spans() if span.kind == SpanKind.SERVER]
    assert kickoff.name == "GET /v1/clinics/{clinic_id}/fhir/$export"
    run_queued()
    [task] = [span for span in spans.get_finished_spans() if span.kind == SpanKind.CONSUMER]
    assert task.name.startswith("task clinicrecords.exports.")
    assert task.context.trace_id == kickoff.context.trace_id
    assert task.parent.span_id == kickoff.context.span_id


def test_no_query_string_body_key_email_or_search_term_in_any_span(testapp, world, connected, spans):
    patient = {**PatientCreate.EXAMPLE, "family_name": "Quillonbrae", "email": "quillon.brae@example.org"}
    with Receiver(default=204) as receiver:
        world.webhook(clinic_id=connected.clinic_id, url=receiver.url)
        testapp.post_json(f"/v1/clinics/{connected.clinic_id}/patients", patient,
                          headers={**connected.headers, "Idempotency-Key": "trace-idem-key"}, status=201)
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients?family_name=Quillonbrae", headers=connected.headers)
    testapp.get(f"/v1/me?api_key={connected.key}", status=401)
    finished = spans.get_finished_spans()
    assert len([span for span in finished if span.kind == SpanKind.SERVER]) == 3
    exported = "\n".join(span.to_json() for span in finished)
    for forbidden in (parse_key(connected.key).secret, connected.key, "quillon.brae@example.org", "Quillonbrae",
                      "family_name", "api_key", "trace-idem-key", "Harbour", receiver.url):
        assert forbidden not in exported, forbidden
    json.loads("[" + ",".join(span.to_json() for span in finished) + "]")


def test_off_unless_the_otel_variables_configure_an_exporter(testapp):
    assert tracing.tracer() is None
    assert not tracing.configured_by_environment({})
    assert tracing.configured_by_environment({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert not tracing.configured_by_environment({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
                                                  "OTEL_SDK_DISABLED": "true"})
    assert not tracing.configured_by_environment({"OTEL_TRACES_EXPORTER": "none"})


def _statement_listeners(engine):
    return (list(engine.dispatch.before_cursor_execute), list(engine.dispatch.after_cursor_execute),
            [listener for listener in engine.dialect.dispatch.handle_error if listener is tracing._failed])


def test_while_off_the_engine_carries_no_statement_listener_and_enabling_adds_them(app, engine):
    """An engine with a statement listener runs SQLAlchemy's event dispatch on every connection, BEGIN and
    COMMIT: they are there only while tracing is on, and an engine built before `enable` is traced too."""
    assert tracing.tracer() is None
    assert _statement_listeners(engine) == ([], [], [])
    tracing.enable(TracerProvider())
    try:
        assert all(len(listeners) == 1 for listeners in _statement_listeners(engine))
        tracing.enable(TracerProvider())  # enabled again: still one of each
        assert all(len(listeners) == 1 for listeners in _statement_listeners(engine))
    finally:
        tracing.disable()
    assert _statement_listeners(engine) == ([], [], [])


def test_a_log_line_inside_a_traced_request_names_its_trace(testapp, spans):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(LogFormatter("json"))
    logger = logging.getLogger("clinicrecords.request")
    logger.addHandler(handler)
    saved = logger.level
    logger.setLevel(logging.INFO)
    try:
        testapp.get("/healthz")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved)
    [line] = [json.loads(text) for text in stream.getvalue().splitlines()]
    [server] = [span for span in spans.get_finished_spans() if span.kind == SpanKind.SERVER]
    assert line["trace_id"] == format(server.context.trace_id, "032x")


def test_the_request_s_span_and_its_log_line_wrap_the_transaction(app):
    """Outermost, in this order: the metrics and the span, then the request log, then the transaction's commit;
    so the commit, the tasks queued at it and the request log's line are inside the request's span, and the
    request log sees every answer. Pyramid orders tweens by constraints: a new one can move the others."""
    from pyramid.interfaces import ITweens

    names = [name for name, _ in app.registry.queryUtility(ITweens).implicit()]
    assert names[:4] == ["clinicrecords.observability.http.metrics_tween_factory",
                         "clinicrecords.api.request_log.request_log_tween_factory",
                         "clinicrecords.api.request_text.request_text_tween_factory",
                         "clinicrecords.db.commit_or_apart.commit_or_apart_tween_factory"]
    assert names.index("pyramid_tm.tm_tween_factory") < names.index("pyramid.tweens.excview_tween_factory")
