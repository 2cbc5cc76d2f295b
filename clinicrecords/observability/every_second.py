"""The process's in-memory readings (its pools, its answers) written to the metrics every second by one daemon
thread, by the process itself when it answers a scrape, and at its exit: with several processes, the scrape
another process answers sees them at most a second late; the process answering a scrape sees its own exactly."""

import atexit
import logging
import os
import threading
import time

READ_EVERY_SECONDS = 1.0

log = logging.getLogger(__name__)


class EverySecond:
    def __init__(self):
        self._readers = []
        self._lock = threading.Lock()
        self._thread = None

    def add(self, read):
        """Run `read()` every second from now on, and at every `read_now()`."""
        with self._lock:
            if read not in self._readers:
                self._readers.append(read)
            if self._thread is None:
                self._start()
                atexit.register(self.read_now)  # the last second's

    def read_now(self):
        for read in list(self._readers):
            read()

    def _start(self):
        self._thread = threading.Thread(target=self._every_second, name="metric-readings", daemon=True)
        self._thread.start()

    def _every_second(self):
        while True:
            time.sleep(READ_EVERY_SECONDS)
            try:
                self.read_now()
            except Exception:  # the next second reads again; a thread that died would read nothing more
                log.exception("reading the metrics failed")

    def _after_fork(self):
        # A forked child keeps the readers but none of the parent's threads.
        self._lock = threading.Lock()
        self._thread = None
        if self._readers:
            self._start()


READINGS = EverySecond()
os.register_at_fork(after_in_child=READINGS._after_fork)
