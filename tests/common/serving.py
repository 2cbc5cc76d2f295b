import contextlib
import threading

from waitress import create_server


@contextlib.contextmanager
def serving(wsgi_app):
    """A WSGI application on 127.0.0.1 through waitress, as `scripts/serve` runs it; yields its base URL."""
    server = create_server(wsgi_app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        thread.join(timeout=10)
