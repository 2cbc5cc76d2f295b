"""The paste server runner for `pserve`: waitress, with the address from $HOST and the port from $PORT when
set, and the Huey consumer in the same process when the settings ask for it (development)."""

import os
import signal

import waitress

from clinicrecords.settings import as_bool


def listen_from_environment(listen, environ):
    """The ini's `listen` (one host:port) with $HOST and/or $PORT put in place of its parts."""
    host, _, port = listen.rpartition(":") if ":" in listen else (listen, "", "6543")
    return f"{environ.get('HOST') or host}:{environ.get('PORT') or port}"


def serve_waitress(wsgi_app, global_conf, **kw):
    if os.environ.get("PORT") or os.environ.get("HOST"):
        kw["listen"] = listen_from_environment(kw.get("listen", "localhost:6543"), os.environ)
    settings = wsgi_app.registry.settings
    if as_bool(settings.get("huey.consumer_in_process", False)):
        from clinicrecords.tasks.worker import consumer

        _run_consumer_beside(consumer(int(settings.get("huey.workers", 2))))
    print(f"Serving Clinic Records API on http://{kw.get('listen', 'localhost:6543')}", flush=True)
    waitress.serve(wsgi_app, **kw)


def _run_consumer_beside(huey_consumer):
    """Start the consumer's threads, then take SIGTERM/SIGINT back from it: the server process stops both."""
    huey_consumer.start()

    def stop(signum, frame):
        huey_consumer.stop(graceful=True)
        raise SystemExit(0)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
