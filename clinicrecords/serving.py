"""The paste server runner for `pserve`: waitress, with the address from $HOST and the port from $PORT when
set, and the Huey consumer in the same process when the settings ask for it (development).

Once the server answers (its own /healthz), it says so, with its portal and reference and where its mail
goes, and records the address in the var dir for the operator CLI (clinicrecords.listening): nothing
announces an address before a request to it is answered.

waitress's own refusals (a body over its cap, headers over theirs, malformed HTTP) are answered as
problem+json by clinicrecords.waitress_refusals; its body cap must sit above the largest body any route
accepts, so that every refusal the application can make is made by the application."""

import gc
import logging
import os
import signal
import threading
import time
import urllib.error
import urllib.request

import waitress.server

from clinicrecords.api.limits import input_limits
from clinicrecords.api.public_url import PORTAL_PATH, portal_base_url
from clinicrecords.db import check_ready_to_serve
from clinicrecords.listening import DEFAULT_LISTEN, listen_from_environment, local_base_url, record_served
from clinicrecords.mail.services import where_mail_goes
from clinicrecords.settings import SettingsError, app_settings, refuse_to_start, served_database, var_dir
from clinicrecords.waitress_refusals import problem_channel
from clinicrecords.warm_ups import warm_up

log = logging.getLogger(__name__)
# How long the server waits to answer its own first request before it says it does not.
ANSWER_WAIT_SECONDS = 60


def create_server(wsgi_app, **kw):
    """A waitress server (not yet running) whose own refusals are problem+json."""
    limits = input_limits(wsgi_app.registry)
    cap = int(kw.get("max_request_body_size", 1073741824))
    if cap <= limits.largest_body():
        raise SettingsError(f"max_request_body_size ({cap}) must be larger than the largest body a route "
                            f"accepts ({limits.largest_body()}), so that the application answers it")
    channel = problem_channel(limits)
    sockets = {}
    server = waitress.server.create_server(wsgi_app, map=sockets, **kw)
    for dispatcher in list(sockets.values()):
        if isinstance(dispatcher, waitress.server.BaseWSGIServer):
            dispatcher.channel_class = channel
    return server


def serve_waitress(wsgi_app, global_conf, **kw):
    if os.environ.get("PORT") or os.environ.get("HOST"):
        kw["listen"] = listen_from_environment(kw.get("listen", DEFAULT_LISTEN), os.environ)
    queue = app_settings(wsgi_app.registry).queue
    try:
        check_ready_to_serve(wsgi_app.registry)
    except SettingsError as exc:
        # pserve reports a SystemExit from its server runner as "Exiting" and ends with status 0, which a
        # supervisor reads as a clean stop: nothing has started yet, so the process ends here, with status 2.
        refuse_to_start(exc, at_once=True)
    server = create_server(wsgi_app, **kw)
    huey_consumer = None
    if queue.consumer_in_process:
        # Only when the consumer runs inside pserve (development): the worker's imports stay out of production.
        from clinicrecords.tasks.worker import consumer

        huey_consumer = consumer(queue.workers)
        huey_consumer.start()
    _exit_cleanly_on_signals(huey_consumer)
    url = _served_url(server, kw.get("listen", DEFAULT_LISTEN))
    threading.Thread(target=announce_once_answering, args=(wsgi_app.registry, url), name="announce",
                     daemon=True).start()
    keep_start_up_out_of_collections()
    threading.Thread(target=_warm_up_then_freeze, args=(wsgi_app.registry,), name="warm-up", daemon=True).start()
    server.run()


def keep_start_up_out_of_collections():
    """Everything alive once the application is built (modules, mappers, the registry: about 230,000 objects)
    lives as long as the process. Left to the cyclic collector, each of its full passes walks them all and stops
    every thread for 170-210 ms, a request's p99 decided by whether one fell inside it; frozen, a full pass
    walks only what was made since."""
    gc.collect()
    gc.freeze()


def _warm_up_then_freeze(registry):
    # The warm-ups' loads live as long as the process too (the ICD-10 code set alone is about 600,000 objects).
    # Frozen while requests may be in flight: what they hold then is never collected as a cycle, once.
    warm_up(registry)
    keep_start_up_out_of_collections()


def _served_url(server, listen):
    """Where this machine reaches the server: its first address, with the port it was given (port 0: the one
    the system chose)."""
    host = listen.split()[0].rpartition(":")[0] or "localhost"
    port = getattr(server, "effective_port", None)
    return local_base_url(f"{host}:{port}" if port else listen.split()[0], {})


def announce_once_answering(registry, url):
    """Wait until `url` answers (any status: a 503 while the database is down is still the server), then record
    where it serves (the operator CLI's links) and say so, with where its mail goes."""
    deadline = time.monotonic() + ANSWER_WAIT_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=5):
                break
        except urllib.error.HTTPError as answered:
            answered.close()
            break
        except OSError:
            if time.monotonic() > deadline:
                log.warning("the server did not answer %s/healthz within %d s", url, ANSWER_WAIT_SECONDS)
                return
            time.sleep(0.1)
    settings = app_settings(registry)
    portal = portal_base_url(settings) if settings.portal.url or settings.portal.host else url + PORTAL_PATH
    print(f"Serving Clinic Records API on {url} (API reference: {url}/v1/docs; developer portal: {portal}/)\n"
          f"{where_mail_goes(registry)}", flush=True)
    try:
        record_served(var_dir(settings), url, served_database(settings))
    except OSError as exc:  # a read-only var dir: the CLI then builds links from the ini, as before
        log.warning("could not record the served address in the var dir: %s", exc)


def _exit_cleanly_on_signals(huey_consumer=None):
    """SIGTERM/SIGINT stop the in-process consumer (after its start took them) and end the process through
    SystemExit, so exit hooks run: the request log writes its last batch."""

    def stop(signum, frame):
        if huey_consumer is not None:
            huey_consumer.stop(graceful=True)
        raise SystemExit(0)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
