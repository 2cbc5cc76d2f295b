import contextlib
import threading

from waitress import create_server


@contextlib.contextmanager
def serving(wsgi_app, **options):
    """A WSGI application on 127.0.0.1 through waitress, as `scripts/serve` runs it (`options`: more of
    waitress's settings, e.g. the trusted proxy's); yields its base URL."""
    server = create_server(wsgi_app, host="127.0.0.1", port=0, **{"threads": 4, **options})
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.task_dispatcher.shutdown()  # its request threads end, not left running into later tests
        # Closed by the loop's own thread: a close from here can land while the loop's select() holds the
        # socket, which then fails with EBADF in the server's thread.
        server.trigger.pull_trigger(server.close)
        thread.join(timeout=10)
