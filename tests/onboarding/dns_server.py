"""A real authoritative DNS server on 127.0.0.1 (dnslib), whose zone a test edits while it runs."""

import collections
import contextlib
import socket
import threading
import time

from dnslib import QTYPE, RCODE, RR, TXT, A, DNSRecord
from dnslib.server import BaseResolver, DNSLogger, DNSServer


class Zone(BaseResolver):
    def __init__(self):
        self.txt = {}  # name -> [values]
        self.a = {}  # name -> address: a name that exists without a TXT record
        self.servfail = set()
        self.refused = set()
        self.delay = 0.0
        self.queries = collections.Counter()
        self._lock = threading.Lock()

    def publish(self, name, *values):
        self.txt[name.lower()] = list(values)

    def remove(self, name):
        self.txt.pop(name.lower(), None)

    def resolve(self, request, handler):
        name = str(request.q.qname).rstrip(".").lower()
        with self._lock:
            self.queries[name] += 1
        if self.delay:
            time.sleep(self.delay)
        reply = request.reply()
        reply.header.aa = 1
        if name in self.servfail:
            reply.header.rcode = RCODE.SERVFAIL
        elif name in self.refused:
            reply.header.rcode = RCODE.REFUSED
        elif request.q.qtype == QTYPE.TXT and name in self.txt:
            for value in self.txt[name]:
                # Long values are split into 255-byte strings, as zone files do.
                strings = [value[i:i + 255] for i in range(0, len(value), 255)]
                reply.add_answer(RR(request.q.qname, QTYPE.TXT, rdata=TXT(strings), ttl=0))
        elif request.q.qtype == QTYPE.A and name in self.a:
            reply.add_answer(RR(request.q.qname, QTYPE.A, rdata=A(self.a[name]), ttl=0))
        elif name not in self.txt and name not in self.a:
            reply.header.rcode = RCODE.NXDOMAIN
        return reply


@contextlib.contextmanager
def authoritative_server():
    """(zone, "127.0.0.1:port")"""
    zone = Zone()
    server = DNSServer(zone, address="127.0.0.1", port=0, logger=DNSLogger(logf=lambda text: None))
    server.start_thread()
    try:
        yield zone, f"127.0.0.1:{server.server.server_address[1]}"
    finally:
        server.stop()
        server.server.server_close()


@contextlib.contextmanager
def silent_server():
    """A UDP port that takes queries and never answers: every lookup times out. Yields "127.0.0.1:port"."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


class HeldServer:
    """A UDP nameserver on 127.0.0.1 that reads each query and does not answer it: the lookup waits as on a
    resolver that never answers. `asked` is set at the first query; `release()` answers every query held
    (NXDOMAIN) and those to come, so a test need not sit out the lookup's whole timeout."""

    def __init__(self):
        self.asked = threading.Event()
        self.queries = 0
        self._released = threading.Event()
        self._held = []
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.settimeout(0.1)
        self.address = f"127.0.0.1:{self._sock.getsockname()[1]}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self):
        while not self._stop.is_set():
            try:
                data, peer = self._sock.recvfrom(4096)
            except (TimeoutError, OSError):
                continue
            with self._lock:
                self.queries += 1
                self._held.append((data, peer))
            self.asked.set()
            if self._released.is_set():
                self._answer_held()

    def _answer_held(self):
        with self._lock:
            held, self._held = self._held, []
        for data, peer in held:
            reply = DNSRecord.parse(data).reply()
            reply.header.rcode = RCODE.NXDOMAIN
            self._sock.sendto(reply.pack(), peer)

    def release(self):
        self._released.set()
        self._answer_held()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)
        self._sock.close()
