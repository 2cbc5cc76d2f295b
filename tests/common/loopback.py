"""An HTTP server on a free loopback port, served from a daemon thread: what the tests' receivers (webhooks,
OTLP traces) are built on."""

import threading
from http.server import ThreadingHTTPServer


class LoopbackServer:
    def __init__(self, handler_class):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        if self.thread.is_alive():  # shutdown() waits for serve_forever, forever if it never ran
            self.server.shutdown()
        self.server.server_close()
