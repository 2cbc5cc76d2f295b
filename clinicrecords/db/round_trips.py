"""Counting network round trips to PostgreSQL, as the wire sees them (the benchmark and its pinning test).

`RoundTrips(engine)` puts a relay between the engine's new connections and the server and counts, per
connection, each time the client speaks after the server has answered: one round trip, whatever it carried
(BEGIN, a pipeline of statements, COMMIT, an autocommit statement). libpq and psycopg's C code cannot be
observed from Python, so the socket is the only honest place to count. Diagnostics only: never on a serving
path.
"""

import os
import selectors
import socket
import tempfile
import threading

from sqlalchemy import event

_CHUNK = 65536


class RoundTrips:
    def __init__(self, engine):
        self.engine = engine
        self._count = 0
        self._lock = threading.Lock()
        self._dir = tempfile.mkdtemp(prefix="round-trips-")
        # libpq names a socket in `host` (a directory) after the port.
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(os.path.join(self._dir, ".s.PGSQL.5432"))
        self._listener.listen(64)
        self._upstream = _upstream_address(engine.url)
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="round-trips").start()
        event.listen(engine, "do_connect", self._through_relay)
        engine.dispose()  # connections made before now would bypass the relay

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def count(self):
        with self._lock:
            return self._count

    def reset(self):
        with self._lock:
            self._count = 0

    def close(self):
        event.remove(self.engine, "do_connect", self._through_relay)
        self.engine.dispose()
        self._closed = True
        self._listener.close()

    def _through_relay(self, dialect, record, cargs, cparams):
        cparams.update(host=self._dir, port=5432)

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            family, address = self._upstream
            server = socket.socket(family, socket.SOCK_STREAM)
            server.connect(address)
            threading.Thread(target=self._relay, args=(client, server), daemon=True).start()

    def _relay(self, client, server):
        selector = selectors.DefaultSelector()
        selector.register(client, selectors.EVENT_READ, server)
        selector.register(server, selectors.EVENT_READ, client)
        answered = True  # the client's first words open the first round trip
        try:
            while True:
                for key, _ in selector.select():
                    data = key.fileobj.recv(_CHUNK)
                    if not data:
                        return
                    from_client = key.fileobj is client
                    if from_client and answered:
                        with self._lock:
                            self._count += 1
                    answered = not from_client
                    key.data.sendall(data)
        except OSError:
            return
        finally:
            selector.close()
            client.close()
            server.close()


def _upstream_address(url):
    host = url.query.get("host") or url.host or "/var/run/postgresql"
    port = url.port or 5432
    if host.startswith("/"):
        return socket.AF_UNIX, os.path.join(host, f".s.PGSQL.{port}")
    return socket.AF_INET, (host, port)
