"""The service as real engines see it: Debian's Prometheus scraping the served application (its series exist
and count what the test sent; the shipped rules load), and an OTLP/HTTP receiver decoding real exports
(opentelemetry-proto) in which no key, email or search term appears."""

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

from clinicrecords.access.keys import parse_key
from clinicrecords.observability import tracing
from tests.common.otlp import OtlpReceiver
from tests.common.ports import free_port

RULES = Path(__file__).parents[2] / "deploy" / "prometheus" / "alerts.yml"
prometheus = shutil.which("prometheus")


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.load(answer)


def first_result(api, query, deadline):
    """The first series Prometheus answers `query` with, asked every half second until `deadline`; None."""
    while time.monotonic() < deadline:
        try:
            result = get_json(f"{api}/query?query={urllib.parse.quote(query)}")["data"]["result"]
        except OSError:  # Prometheus not listening yet
            result = []
        if result:
            return result[0]
        time.sleep(0.5)
    return None


def healthz_count(served):
    with urllib.request.urlopen(f"{served}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    prefix = 'clinicrecords_http_requests_total{method="GET",route="/healthz",status="200"} '
    return next((float(line[len(prefix):]) for line in text.splitlines() if line.startswith(prefix)), 0.0)


def test_prometheus_scrapes_the_service_and_counts_what_was_sent(served, tmp_path):
    assert prometheus is not None, "Debian's prometheus package is missing: scripts/test installs it"
    before = healthz_count(served)
    for _ in range(7):
        urllib.request.urlopen(f"{served}/healthz", timeout=10).read()
    port = free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(json.dumps({
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(RULES)],
        "scrape_configs": [{"job_name": "clinicrecords",
                            "static_configs": [{"targets": [urllib.parse.urlsplit(served).netloc]}]}],
    }))
    process = subprocess.Popen([prometheus, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
                                f"--web.listen-address=127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    api = f"http://127.0.0.1:{port}/api/v1"
    deadline = time.monotonic() + 60
    try:
        found = first_result(api, 'clinicrecords_http_requests_total{route="/healthz",status="200"}', deadline)
        assert found is not None and float(found["value"][1]) == before + 7, found
        # A scrape in which the queue's storage did not answer has no queue gauges (`..._scrape_queue_up 0` says
        # so; it happened once under the whole suite's load): each series is waited for, not asked of the first
        # scrape that counted the requests.
        for name in ("clinicrecords_http_request_duration_seconds_bucket", "clinicrecords_queue_tasks",
                     "clinicrecords_webhook_deliveries_pending", "clinicrecords_build_info"):
            assert first_result(api, name, deadline), name
        rules = get_json(f"{api}/rules")["data"]["groups"]
        assert len([rule for group in rules for rule in group["rules"]]) == 7
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_an_otlp_receiver_decodes_the_exported_spans(testapp, connected, monkeypatch):
    receiver = OtlpReceiver().start()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    assert tracing.configured_by_environment()
    provider = tracing.provider_from_environment()
    tracing.enable(provider)
    try:
        testapp.get(f"/v1/clinics/{connected.clinic_id}/patients?family_name=Quillonbrae",
                    headers=connected.headers)
        testapp.get(f"/v1/me?api_key={connected.key}&email=quillon.brae@example.org", status=401)
        provider.force_flush()
    finally:
        tracing.disable()
        provider.shutdown()
        receiver.stop()
    found = receiver.spans()
    assert {service for service, _ in found} == {"clinicrecords"}
    names = {span.name for _, span in found}
    assert {"GET /v1/clinics/{clinic_id}/patients", "GET /v1/me"} <= names
    assert any(name.startswith("SELECT") for name in names)
    raw = receiver.raw()
    for forbidden in (parse_key(connected.key).secret, connected.key, "quillon.brae@example.org", "Quillonbrae",
                      "family_name", "api_key"):
        assert forbidden.encode() not in raw, forbidden
