"""The paste server runner for `pserve`: waitress, with the address from $HOST and the port from $PORT when
set, and the Huey consumer in the same process when the settings ask for it (development).

waitress's own refusals (a body over its cap, headers over theirs, malformed HTTP) are answered as
problem+json by clinicrecords.waitress_refusals; its body cap must sit above the largest body any route
accepts, so that every refusal the application can make is made by the application."""

import os
import signal

import waitress.server

from clinicrecords.api.limits import input_limits
from clinicrecords.db import check_ready_to_serve
from clinicrecords.listening import DEFAULT_LISTEN, listen_from_environment
from clinicrecords.settings import SettingsError, app_settings, refuse_to_start
from clinicrecords.waitress_refusals import problem_channel


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
    print(f"Serving Clinic Records API on http://{kw.get('listen', DEFAULT_LISTEN)}", flush=True)
    server.run()


def _exit_cleanly_on_signals(huey_consumer=None):
    """SIGTERM/SIGINT stop the in-process consumer (after its start took them) and end the process through
    SystemExit, so exit hooks run: the request log writes its last batch."""

    def stop(signum, frame):
        if huey_consumer is not None:
            huey_consumer.stop(graceful=True)
        raise SystemExit(0)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
