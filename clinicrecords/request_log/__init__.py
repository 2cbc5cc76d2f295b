"""The request log: each workspace's (and clinic-owned key's) API requests of the last 7 days.

The API's request-log tween hands every keyed request to this context's writer (`add_request_sink`),
which writes them in batches off the request path; `IRequestLog` reads them back for the portal and the
operator CLI (`requests list`).
"""

import dataclasses

from clinicrecords.api.request_log import add_request_sink
from clinicrecords.db import make_engine
from clinicrecords.request_log.interfaces import IRequestLog
from clinicrecords.request_log.paths import route_words
from clinicrecords.request_log.services import request_log_factory
from clinicrecords.request_log.writer import RequestLogWriter
from clinicrecords.settings import app_settings


# The process's RequestLogWriter (when the log is enabled), kept in the registry.
WRITER = "request_log.writer"


def make_writer(registry):
    settings = app_settings(registry)
    # One connection of its own, outside the request pool; named so operators can tell it apart.
    writer_settings = dataclasses.replace(settings, database=dataclasses.replace(
        settings.database, application_name="clinicrecords-request-log"))
    log = settings.request_log
    return RequestLogWriter(
        lambda: make_engine(writer_settings, pool_size=1, max_overflow=0, pool_max_uses=0),
        lambda: route_words(registry),
        capacity=log.buffer_entries,
        batch=log.batch_entries,
        interval=log.flush_interval_ms / 1000,
    )


def includeme(config):
    config.register_service_factory(request_log_factory, iface=IRequestLog)
    if app_settings(config.registry).request_log.enabled:
        writer = make_writer(config.registry)
        config.registry[WRITER] = writer
        add_request_sink(config, writer.append)
    # Registers the periodic prune with the Huey instance of whichever process runs the application.
    config.scan(".tasks")
