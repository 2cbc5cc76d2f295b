"""What an operator sees of the service working: Prometheus metrics (GET /metrics), the alerts' inputs;
JSON log lines (`logs.LogFormatter`); OpenTelemetry traces when the OTEL_* variables ask for them.

A platform package: it imports no context. Contexts hand it what only they can count with
`add_metric_source` (clinicrecords.observability.sources).
"""

import atexit
import importlib.metadata
import os

from prometheus_client.multiprocess import mark_process_dead

from pyramid.security import NO_PERMISSION_REQUIRED
from pyramid.tweens import INGRESS

from clinicrecords.db import ENGINE
from clinicrecords.observability import tracing
from clinicrecords.observability.metrics import BUILD_INFO
from clinicrecords.observability.pool import watch_pool
from clinicrecords.observability.sources import Reading, add_metric_source, archiver_readings
from clinicrecords.observability.views import metrics
from clinicrecords.resources import Root

__all__ = ["Reading", "add_metric_source", "includeme"]


def version():
    try:
        return importlib.metadata.version("clinicrecords")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def includeme(config):
    BUILD_INFO.labels(version()).set(1)
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        # Its live gauges (requests in flight, connections in use) leave the host's totals when it exits.
        atexit.register(mark_process_dead, os.getpid(), directory)
    config.add_view(metrics, context=Root, name="metrics", request_method="GET", permission=NO_PERMISSION_REQUIRED)
    # Outermost: the span, the time and the request id cover the commit and what runs after it (the tasks
    # queued at commit carry the request's trace), and every failure below has been answered by then.
    config.add_tween("clinicrecords.observability.http.metrics_tween_factory", under=INGRESS,
                     over="clinicrecords.api.request_log.request_log_tween_factory")
    engine = config.registry[ENGINE]
    watch_pool(engine)
    tracing.install(engine)
    if tracing.configured_by_environment():
        tracing.enable(tracing.provider_from_environment())
    config.add_directive("add_metric_source", add_metric_source)
    config.add_metric_source(archiver_readings)
    # The backup's periodic read and the failed tasks' count, in whichever process runs the queue's consumer.
    config.scan(".tasks")
