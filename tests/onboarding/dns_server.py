"""A real authoritative DNS server on 127.0.0.1 (dnslib), whose zone a test edits while it runs."""

import collections
import contextlib
import socket
import threading
import time

from dnslib import QTYPE, RCODE, RR, TXT, A
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
