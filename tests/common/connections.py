"""Watches that a request never holds two pooled connections at once (issue: PgBouncer, pooled deployments).

A request that holds its transaction's connection while it waits for a second one deadlocks when every
connection is held that way: a pool smaller than the thread count, or a transaction pooler with few server
connections. The watch counts each thread's checked-out connections of an engine; while a request runs in
a thread (inside the WSGI call) it may hold at most one more than the thread held when the request began.
"""

import threading

from sqlalchemy import event


class ConnectionWatch:
    def __init__(self, engine):
        self.engine = engine
        self.violations = []
        self._held = {}
        self._request_base = threading.local()
        self._lock = threading.Lock()
        event.listen(engine, "checkout", self._checked_out)
        event.listen(engine, "checkin", self._checked_in)

    def close(self):
        event.remove(self.engine, "checkout", self._checked_out)
        event.remove(self.engine, "checkin", self._checked_in)

    def held(self, thread_id=None):
        return self._held.get(thread_id or threading.get_ident(), 0)

    def _checked_out(self, dbapi_connection, record, proxy):
        thread_id = threading.get_ident()
        record.info["watch.thread"] = thread_id
        with self._lock:
            held = self._held[thread_id] = self._held.get(thread_id, 0) + 1
        base = getattr(self._request_base, "value", None)
        if base is not None and held - base > 1:
            self.violations.append(f"{self._request_base.path}: {held - base} connections held at once")

    def _checked_in(self, dbapi_connection, record):
        thread_id = record.info.pop("watch.thread", None)
        if thread_id is not None:
            with self._lock:
                self._held[thread_id] -= 1

    def wrap(self, wsgi_app):
        def watched(environ, start_response):
            self._request_base.value = self.held()
            self._request_base.path = f"{environ.get('REQUEST_METHOD')} {environ.get('PATH_INFO')}"
            try:
                return wsgi_app(environ, start_response)
            finally:
                self._request_base.value = None
        return watched

    def assert_one_at_a_time(self):
        found, self.violations = self.violations, []
        assert not found, "a request held two pooled connections at once: " + "; ".join(found)
