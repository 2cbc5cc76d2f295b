"""The paste server runner for `pserve`: waitress, with the port from $PORT when set, and the Huey
consumer in the same process when the settings ask for it (development)."""

import os
import signal

import waitress

from clinicrecords.settings import as_bool


def _listen_with_port(listen, port):
    host = listen.rsplit(":", 1)[0] if ":" in listen else listen
    return f"{host}:{port}"


def serve_waitress(wsgi_app, global_conf, **kw):
    if os.environ.get("PORT"):
        kw["listen"] = _listen_with_port(kw.get("listen", "localhost:6543"), os.environ["PORT"])
    settings = wsgi_app.registry.settings
    huey_consumer = None
    if as_bool(settings.get("huey.consumer_in_process", False)):
        from clinicrecords.tasks.worker import consumer

        huey_consumer = consumer(int(settings.get("huey.workers", 2)))
        huey_consumer.start()
    _exit_cleanly_on_signals(huey_consumer)
    print(f"Serving Clinic Records API on http://{kw.get('listen', 'localhost:6543')}", flush=True)
    waitress.serve(wsgi_app, **kw)


def _exit_cleanly_on_signals(huey_consumer=None):
    """SIGTERM/SIGINT stop the in-process consumer (after its start took them) and end the process through
    SystemExit, so exit hooks run: the request log writes its last batch."""

    def stop(signum, frame):
        if huey_consumer is not None:
            huey_consumer.stop(graceful=True)
        raise SystemExit(0)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
