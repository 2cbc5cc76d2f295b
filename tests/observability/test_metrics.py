"""GET /metrics: the Prometheus text format to the scrapers `metrics.*` allows (404 to anyone else); every
answer counted by its route template, method and status; no clinic's, patient's or key's id in a label."""

import dataclasses
import datetime
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
import uuid

import webtest
from huey import Huey
from huey.storage import MemoryStorage
from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.exc import OperationalError

from clinicrecords.access.keys import parse_key
from clinicrecords.api.route_table import route_table
from clinicrecords.events.models import WebhookDelivery, WebhookEndpoint
from clinicrecords.exports.models import ExportJob
from clinicrecords.mail.models import OutgoingMail
from clinicrecords.observability.answers import AnswerTally
from clinicrecords.observability.http import TEMPLATES
from clinicrecords.observability.metrics import DURATION_BUCKETS, HTTP_DURATION, HTTP_REQUESTS
from clinicrecords.observability.routes import UNMATCHED, RouteTemplates
from clinicrecords.observability.sources import METRIC_SOURCES, queue_readings
from clinicrecords.observability.tasks import last_successful_backup, report_backup
from clinicrecords.settings import REGISTRY_KEY, app_settings
from clinicrecords.tasks import QUEUED_AT, huey, task
from tests.events.support import Receiver, emit_events

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
OUTSIDE = {"REMOTE_ADDR": "203.0.113.7"}


def scrape(testapp, **kwargs):
    response = testapp.get("/metrics", **kwargs)
    assert response.content_type == "text/plain"
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.text) for sample in family.samples}


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_a_request_is_counted_by_its_route_template(testapp, connected):
    before = scrape(testapp)
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers)
    after = scrape(testapp)
    labels = {"route": "/v1/clinics/{clinic_id}/patients", "method": "GET", "status": "200"}
    assert value(after, "clinicrecords_http_requests_total", **labels) == \
        value(before, "clinicrecords_http_requests_total", **labels) + 1
    timed = {"route": "/v1/clinics/{clinic_id}/patients", "method": "GET"}
    assert value(after, "clinicrecords_http_request_duration_seconds_count", **timed) == \
        value(before, "clinicrecords_http_request_duration_seconds_count", **timed) + 1
    # The scrape itself is in flight while it answers.
    assert value(after, "clinicrecords_http_requests_in_flight") == 1


def test_an_unknown_path_is_one_value_and_no_id_reaches_a_label(testapp, connected):
    before = scrape(testapp)
    testapp.get(f"/no/such/{connected.clinic_id}/path", status=404)
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients/{connected.sandbox_clinic_id}",
                headers=connected.headers, status=404)
    response = testapp.get("/metrics")
    after = scrape(testapp)
    unmatched = {"route": UNMATCHED, "method": "GET", "status": "404"}
    assert value(after, "clinicrecords_http_requests_total", **unmatched) == \
        value(before, "clinicrecords_http_requests_total", **unmatched) + 1
    for identifier in (str(connected.clinic_id), str(connected.sandbox_clinic_id), parse_key(connected.key).key_id):
        assert identifier not in response.text


def test_refusals_are_counted_by_problem_code(testapp):
    before = scrape(testapp)
    code = testapp.get("/v1/me", headers={"Authorization": "Bearer ehr_test_nope"}, status=401).json["code"]
    after = scrape(testapp)
    assert value(after, "clinicrecords_http_refusals_total", code=code) == \
        value(before, "clinicrecords_http_refusals_total", code=code) + 1


def test_every_route_of_the_route_table_is_its_own_label(registry):
    templates = registry[TEMPLATES]
    for route in route_table(registry):
        path = "/".join("x1" if segment.startswith("{") else segment for segment in route.path.split("/"))
        assert templates.match(path) == route.path


def test_a_literal_segment_wins_over_a_parameter_and_a_trailing_slash_is_the_same_route():
    templates = RouteTemplates({"/v1/p/{p_id}", "/v1/p/search", "/v1/p/{p_id}/notes", "/portal/"})
    assert templates.match("/v1/p/search") == "/v1/p/search"
    assert templates.match("/v1/p/search/notes") == "/v1/p/{p_id}/notes"
    assert templates.match("/v1/p/abc/") == "/v1/p/{p_id}"
    assert templates.match("/portal/") == "/portal/"
    assert templates.match("/v1/p") == UNMATCHED
    assert templates.match("/v1/p//notes") == UNMATCHED


def test_refused_to_other_addresses_and_to_an_api_key(testapp, connected):
    assert testapp.get("/metrics", extra_environ=OUTSIDE, status=404).content_type == "application/problem+json"
    testapp.get("/metrics", headers=connected.headers, extra_environ=OUTSIDE, status=404)


def test_the_token_opens_it_from_any_address(testapp, registry, monkeypatch):
    settings = app_settings(registry)
    monkeypatch.setitem(registry, REGISTRY_KEY, dataclasses.replace(
        settings, metrics=dataclasses.replace(settings.metrics, token="s3cret-scrape-token", allow=())))
    testapp.get("/metrics", status=404)  # loopback is no longer allowed
    testapp.get("/metrics", headers={"Authorization": "Bearer wrong"}, extra_environ=OUTSIDE, status=404)
    scrape(testapp, headers={"Authorization": "Bearer s3cret-scrape-token"}, extra_environ=OUTSIDE)


def test_outbox_gauges_count_the_rows(testapp, world, engine):
    endpoint_id, _ = world.webhook(clinic_id=world.clinic())
    with engine.begin() as connection:
        connection.execute(update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id).values(
            disabled_at=func.now()))
        disabled = connection.execute(select(func.count()).where(WebhookEndpoint.disabled_at.is_not(None))).scalar()
        pending = connection.execute(select(func.count()).where(OutgoingMail.status == "pending")).scalar()
        running = connection.execute(select(func.count()).where(ExportJob.status == "running")).scalar()
    samples = scrape(testapp)
    assert disabled >= 1
    assert value(samples, "clinicrecords_webhook_endpoints_disabled") == disabled
    assert value(samples, "clinicrecords_mail_outbox_pending") == pending
    assert value(samples, "clinicrecords_export_jobs_running") == running
    for name in ("clinicrecords_webhook_deliveries_pending", "clinicrecords_webhook_deliveries_failed",
                 "clinicrecords_webhook_deliveries_oldest_pending_age_seconds", "clinicrecords_mail_outbox_failed",
                 "clinicrecords_export_jobs_failed", "clinicrecords_queue_tasks",
                 "clinicrecords_queue_oldest_task_age_seconds", "clinicrecords_postgres_wal_archive_failures",
                 "clinicrecords_postgres_wal_last_archived_timestamp_seconds"):
        assert (name, ()) in samples
    assert value(samples, "clinicrecords_build_info", version=_version()) == 1


def test_outbox_gauges_follow_pending_and_failed_rows(testapp, world, engine):
    """What the webhook backlog and mail-failing alerts read: a delivery a receiver refused stays pending (and
    ages), one given up is failed; a message given up, an export that failed."""
    clinic_id = world.clinic()
    before = scrape(testapp)
    with Receiver(answers=[503, 503], default=503) as receiver:
        endpoint_id, _ = world.webhook(clinic_id=clinic_id, url=receiver.url)
        emit_events(world, clinic_id, count=2)
    mail_id, export_id = uuid.uuid4(), uuid.uuid4()
    with engine.begin() as connection:
        older, given_up = connection.execute(select(WebhookDelivery.id).where(
            WebhookDelivery.endpoint_id == endpoint_id, WebhookDelivery.status == "pending")).scalars().all()
        connection.execute(update(WebhookDelivery).where(WebhookDelivery.id == older).values(
            created_at=func.now() - datetime.timedelta(hours=2)))
        connection.execute(update(WebhookDelivery).where(WebhookDelivery.id == given_up).values(status="failed"))
        connection.execute(insert(OutgoingMail).values(
            id=mail_id, message_id=f"<{mail_id}@metrics.test>", template="test", sender="a@example.org",
            recipient="b@example.org", subject="s", status="failed", attempts=5))
        connection.execute(insert(ExportJob).values(
            id=export_id, clinic_id=clinic_id, key_id="k_metrics", granted=[], level="system", types=[],
            request_url="http://x/", base_url="http://x/", status="failed",
            expires_at=func.now() + datetime.timedelta(hours=1)))
    try:
        after = scrape(testapp)
    finally:
        with engine.begin() as connection:
            connection.execute(delete(OutgoingMail).where(OutgoingMail.id == mail_id))
            connection.execute(delete(ExportJob).where(ExportJob.id == export_id))
            connection.execute(update(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id).values(
                status="cancelled"))
    for name in ("clinicrecords_webhook_deliveries_pending", "clinicrecords_webhook_deliveries_failed",
                 "clinicrecords_mail_outbox_failed", "clinicrecords_export_jobs_failed"):
        assert value(after, name) == value(before, name) + 1, name
    assert value(after, "clinicrecords_webhook_deliveries_oldest_pending_age_seconds") >= 7200


def _version():
    import importlib.metadata

    return importlib.metadata.version("clinicrecords")


def test_the_pool_gauge_counts_connections_in_use(testapp, engine):
    before = value(scrape(testapp), "clinicrecords_db_pool_connections_in_use")
    with engine.connect() as one, engine.connect() as two:
        one.execute(select(func.now()))
        two.execute(select(func.now()))
        during = value(scrape(testapp), "clinicrecords_db_pool_connections_in_use")
    # The scrape holds one connection of its own while it reads the outboxes.
    assert during == before + 2


def _a_waiting_checkout_is_counted(testapp, engine):
    """`engine`'s one connection held, a second checkout waits for it: the scrape counts it while it waits, and
    not once it got the connection."""
    before = value(scrape(testapp), "clinicrecords_db_pool_checkouts_waiting")
    waited = threading.Event()

    def second():
        with engine.connect() as connection:
            connection.execute(select(func.now()))
        waited.set()

    with engine.connect() as held:
        held.execute(select(func.now()))
        waiting = threading.Thread(target=second, daemon=True)
        waiting.start()
        deadline = time.monotonic() + 10
        while value(scrape(testapp), "clinicrecords_db_pool_checkouts_waiting") != before + 1:
            assert time.monotonic() < deadline, "the waiting checkout was never counted"
            time.sleep(0.05)
    assert waited.wait(10)
    waiting.join(10)
    assert value(scrape(testapp), "clinicrecords_db_pool_checkouts_waiting") == before


def _one_connection_engine(make_app):
    return make_app(**{"database.pool_size": "1", "database.max_overflow": "0",
                       "database.pool_timeout": "30"}).registry["db.engine"]


def test_the_pool_gauge_counts_checkouts_waiting_for_a_connection(testapp, make_app):
    _a_waiting_checkout_is_counted(testapp, _one_connection_engine(make_app))


def test_the_pool_gauges_read_the_new_pool_of_a_disposed_engine(testapp, make_app):
    """`engine.dispose()` gives the engine a new pool: its connection in use, and a checkout waiting on it, are
    still counted."""
    engine = _one_connection_engine(make_app)
    engine.dispose()
    before = value(scrape(testapp), "clinicrecords_db_pool_connections_in_use")
    with engine.connect() as held:
        held.execute(select(func.now()))
        assert value(scrape(testapp), "clinicrecords_db_pool_connections_in_use") == before + 1
    _a_waiting_checkout_is_counted(testapp, engine)


def test_pooled_connections_replaced_after_their_server_went_away_are_counted(testapp, make_app, engine):
    """What a failover or a restart does to a pool (its backends terminated): the connection found dead counts
    once under `server_gone`; the pool then replaces every connection opened before it without counting each."""
    named = f"metrics-replaced-{uuid.uuid4().hex[:12]}"
    wsgi_app = make_app(**{"database.pool_size": "2", "database.max_overflow": "0",
                           "database.application_name": named})
    own = wsgi_app.registry["db.engine"]
    held = [own.connect() for _ in range(2)]
    for connection in held:
        connection.execute(select(func.now()))
    for connection in held:
        connection.close()
    before = value(scrape(testapp), "clinicrecords_db_pool_connections_replaced_total", reason="server_gone")
    with engine.connect() as admin:
        terminated = admin.execute(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                        "WHERE application_name = :name"), {"name": named}).scalar()
        admin.commit()
    assert terminated == 2
    other = webtest.TestApp(wsgi_app)
    statuses = [other.get("/healthz", status="*").status_int for _ in range(3)]
    assert statuses[1:] == [200, 200] and statuses[0] in (200, 503), statuses
    after = value(scrape(testapp), "clinicrecords_db_pool_connections_replaced_total", reason="server_gone")
    assert after == before + 1


@task()
def waits(request):
    pass


def test_queue_depth_and_the_oldest_task_s_age_from_its_stamp():
    queue = Huey("observability-test", results=False, storage_class=MemoryStorage)
    assert [reading.value for reading in queue_readings(queue)] == [0, 0.0]
    for queued_at in (1000.0, 1030.0):
        message = waits.s()
        message.kwargs = {QUEUED_AT: queued_at}
        queue.storage.enqueue(queue.serializer.serialize(huey._registry.create_message(message)), 0)
    assert [reading.value for reading in queue_readings(queue, now=1060.0)] == [2, 60.0]


def test_a_task_is_stamped_when_queued_and_runs_without_the_stamp(world):
    seen = []

    @task()
    def records(request, **kwargs):
        seen.append(kwargs)

    with world.request() as request:
        request.enqueue(records)
    assert seen == [{}]


@task()
def fails(request):
    raise RuntimeError("a value from a record")


def test_a_failed_task_is_counted_by_name_and_logged_without_its_message(testapp, world, caplog):
    before = scrape(testapp)
    with world.request() as request:
        request.enqueue(fails)
    after = scrape(testapp)
    name = "tests.observability.test_metrics.fails"
    assert value(after, "clinicrecords_task_failures_total", task=name) == \
        value(before, "clinicrecords_task_failures_total", task=name) + 1
    [line] = [record for record in caplog.records if record.name == "clinicrecords.tasks"]
    assert (line.task, line.error) == (name, "RuntimeError")
    assert "a value from a record" not in line.getMessage()


PGBACKREST_INFO = [{"name": "main", "backup": [
    {"timestamp": {"start": 1700000000, "stop": 1700000100}, "error": False},
    {"timestamp": {"start": 1700086400, "stop": 1700086500}, "error": True},
    {"timestamp": {"start": 1700003600, "stop": 1700003700}, "error": False},
]}]


def test_the_last_successful_backup_is_the_newest_without_an_error():
    assert last_successful_backup(PGBACKREST_INFO) == 1700003700
    assert last_successful_backup([{"name": "main", "backup": []}]) is None


def test_the_backup_gauge_from_pgbackrest_s_json(testapp, tmp_path):
    # A stand-in for the pgbackrest binary, on PATH: the real command's JSON, as it prints it.
    fake = tmp_path / "pgbackrest"
    fake.write_text(f"#!/bin/sh\ncat <<'JSON'\n{json.dumps(PGBACKREST_INFO)}\nJSON\n")
    fake.chmod(0o755)
    environ = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    assert report_backup("main", run=lambda *a, **k: subprocess.run(*a, env=environ, **k)) == 1700003700
    assert value(scrape(testapp), "clinicrecords_backup_last_success_timestamp_seconds") == 1700003700
    before = value(scrape(testapp), "clinicrecords_backup_info_read_failures_total")
    assert report_backup("main", run=lambda *a, **k: subprocess.run(["false"], check=True)) is None
    assert value(scrape(testapp), "clinicrecords_backup_info_read_failures_total") == before + 1


def test_a_web_process_answers_the_worker_s_counts_through_the_multiprocess_directory(tmp_path):
    """Two real processes on one PROMETHEUS_MULTIPROC_DIR: the worker counts a failed task, the web process's
    GET /metrics shows it beside its own requests."""
    environ = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    worker = textwrap.dedent("""
        from clinicrecords.observability.metrics import TASK_FAILURES
        TASK_FAILURES.labels("clinicrecords.mail.tasks.send").inc()
    """)
    subprocess.run([sys.executable, "-c", worker], env=environ, check=True, cwd=ROOT, timeout=60)
    web = textwrap.dedent("""
        import webtest
        from pyramid.paster import get_app
        app = webtest.TestApp(get_app("testing.ini"), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        app.get("/healthz")
        print(app.get("/metrics").text)
    """)
    started = time.monotonic()
    answered = subprocess.run([sys.executable, "-c", web], env=environ, check=True, cwd=ROOT, timeout=120,
                              capture_output=True, text=True).stdout
    assert time.monotonic() - started < 120
    samples = {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
               for family in text_string_to_metric_families(answered) for sample in family.samples}
    assert value(samples, "clinicrecords_task_failures_total", task="clinicrecords.mail.tasks.send") == 1
    assert value(samples, "clinicrecords_http_requests_total", route="/healthz", method="GET", status="200") == 1


def test_answers_tallied_together_are_the_histogram_s_own_observations():
    """A second's answers are written to the duration histogram as one sum per bucket: the same samples as
    `Histogram.observe` gives for each (answers.py adds to the histogram's own values)."""
    route = f"/tallied/{uuid.uuid4()}"
    observed = Histogram("tallied_seconds", "", ["route", "method"], buckets=DURATION_BUCKETS,
                         registry=CollectorRegistry())
    answers = AnswerTally()
    for seconds in (0.003, 0.005, 0.0072, 0.0072, 0.3, 2.5, 31.0):
        request = object()
        answers.started(request)
        answers.answered(request, route, "GET", 200, seconds, None)
        observed.labels(route, "GET").observe(seconds)
    answers.read()

    def samples(metric, prefix):
        return {(sample.name.removeprefix(prefix), tuple(sorted(sample.labels.items()))): sample.value
                for family in metric.collect() for sample in family.samples
                if sample.labels.get("route") == route and not sample.name.endswith("_created")}

    assert samples(HTTP_DURATION, "clinicrecords_http_request_duration_seconds") == \
        samples(observed, "tallied_seconds")
    assert value(samples(HTTP_REQUESTS, ""), "clinicrecords_http_requests_total",
                 route=route, method="GET", status="200") == 7


def _process_answering(environ, script):
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import time, webtest
        from pyramid.paster import get_app
        app = webtest.TestApp(get_app("testing.ini"), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        for _ in range(3):
            app.get("/healthz")
    """) + textwrap.dedent(script)], env=environ, cwd=ROOT, stdout=subprocess.PIPE, text=True)


def _healthz_answers(directory):
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(directory))
    return registry.get_sample_value("clinicrecords_http_requests_total",
                                     {"route": "/healthz", "method": "GET", "status": "200"})


def test_a_process_s_answers_reach_the_scrape_another_process_answers_within_a_second(tmp_path):
    """Answers are tallied in memory and written each second: a web process that answers no scrape still shows,
    through the multiprocess directory, what it answered."""
    answering = _process_answering({**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}, """
        print("answered", flush=True)
        time.sleep(60)
    """)
    try:
        assert answering.stdout.readline().strip() == "answered"
        deadline = time.monotonic() + 10
        while _healthz_answers(tmp_path) != 3:
            assert time.monotonic() < deadline, f"the answers never reached the files: {_healthz_answers(tmp_path)}"
            time.sleep(0.1)
    finally:
        answering.kill()
        answering.wait()
        answering.stdout.close()


def test_a_process_that_exits_writes_its_last_second_s_answers(tmp_path):
    answering = _process_answering({**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}, "")
    try:
        assert answering.wait(120) == 0
    finally:
        answering.stdout.close()
    assert _healthz_answers(tmp_path) == 3


def test_a_process_killed_without_a_word_leaves_the_host_s_live_gauges(tmp_path):
    """A SIGKILLed web process's requests in flight stop counting at the next scrape."""
    environ = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    killed = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import sys, time
        from clinicrecords.observability.metrics import HTTP_IN_FLIGHT
        HTTP_IN_FLIGHT.inc(3)
        print("counted", flush=True)
        time.sleep(60)
    """)], env=environ, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert killed.stdout.readline().strip() == "counted"
        read = textwrap.dedent("""
            from clinicrecords.observability.views import forget_dead_processes
            from prometheus_client import CollectorRegistry, generate_latest
            from prometheus_client.multiprocess import MultiProcessCollector
            import os
            forget_dead_processes(os.environ["PROMETHEUS_MULTIPROC_DIR"])
            registry = CollectorRegistry()
            MultiProcessCollector(registry)
            print(generate_latest(registry).decode())
        """)

        def in_flight():
            text = subprocess.run([sys.executable, "-c", read], env=environ, cwd=ROOT, check=True, timeout=60,
                                  capture_output=True, text=True).stdout
            return next(float(line.split()[-1]) for line in text.splitlines()
                        if line.startswith("clinicrecords_http_requests_in_flight "))

        assert in_flight() == 3
    finally:
        killed.kill()
        killed.wait()
        killed.stdout.close()
    assert in_flight() == 0


def test_a_process_s_pool_gauges_reach_the_scrape_another_process_answers(tmp_path):
    """The pool gauges are read from the pools, each second as well as at a scrape: a process that answers no
    scrape (the worker, the other web process) still shows the connections it holds."""
    environ = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    holding = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import time
        from pyramid.paster import get_app
        from sqlalchemy import text
        engine = get_app("testing.ini").registry["db.engine"]
        held = [engine.connect() for _ in range(2)]
        for connection in held:
            connection.execute(text("SELECT 1"))
        print("held", flush=True)
        time.sleep(60)
    """)], env=environ, cwd=ROOT, stdout=subprocess.PIPE, text=True)

    def in_use():
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(tmp_path))
        return registry.get_sample_value("clinicrecords_db_pool_connections_in_use")

    try:
        assert holding.stdout.readline().strip() == "held"
        deadline = time.monotonic() + 10
        while in_use() != 2:
            assert time.monotonic() < deadline, f"the held connections never reached the gauge: {in_use()}"
            time.sleep(0.1)
    finally:
        holding.kill()
        holding.wait()
        holding.stdout.close()


def test_a_database_that_does_not_answer_costs_its_gauges_not_the_scrape(testapp, registry, monkeypatch):
    def unreachable(connection):
        # What a source meets when the server went away mid-scrape (killing the test's own backend would drop
        # the pool under every later test of the process).
        raise OperationalError("SELECT count(*) FROM control.mail_outbox", None,
                               ConnectionError("server closed the connection unexpectedly"))

    assert value(scrape(testapp), "clinicrecords_scrape_database_up") == 1
    monkeypatch.setitem(registry, METRIC_SOURCES, [unreachable])
    samples = scrape(testapp)
    assert value(samples, "clinicrecords_scrape_database_up") == 0
    assert value(samples, "clinicrecords_scrape_queue_up") == 1
    assert ("clinicrecords_build_info", (("version", _version()),)) in samples
