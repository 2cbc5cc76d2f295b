"""GET /metrics: the host's metrics in Prometheus's text format, to the scrapers `metrics.*` allows; to anyone
else the same 404 as a path that does not exist (no key is asked, and none is accepted)."""

import os

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from pyramid.httpexceptions import HTTPNotFound
from pyramid.response import Response

from clinicrecords.db import ENGINE
from clinicrecords.observability.access import may_scrape
from clinicrecords.observability.every_second import READINGS
from clinicrecords.observability.sources import ScrapeCollector, metric_sources
from clinicrecords.settings import app_settings


class _Forward:
    """This process's own metrics (no multiprocess directory)."""

    def collect(self):
        return REGISTRY.collect()


def forget_dead_processes(directory):
    """A process that ended without saying so (SIGKILL) leaves its live gauges' files (requests in flight,
    pooled connections in use): they would count forever. Their pids are looked up on each scrape."""
    for name in os.listdir(directory):
        if name.startswith("gauge_live") and name.endswith(".db"):
            pid = name[:-3].rpartition("_")[2]
            if pid.isdigit() and not _alive(int(pid)):
                mark_process_dead(int(pid), directory)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def exposition(registry):
    READINGS.read_now()  # this process's own pools and answers, as they are now
    collected = CollectorRegistry(auto_describe=False)
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        forget_dead_processes(directory)
        MultiProcessCollector(collected)
    else:
        collected.register(_Forward())
    collected.register(ScrapeCollector(registry[ENGINE], metric_sources(registry)))
    return generate_latest(collected)


def metrics(context, request):
    if not may_scrape(request, app_settings(request.registry).metrics):
        raise HTTPNotFound()
    return Response(exposition(request.registry), content_type=CONTENT_TYPE_LATEST.split(";")[0],
                    charset="utf-8")
