"""An OTLP/HTTP trace receiver on loopback: keeps every body POSTed to /v1/traces as sent, and decodes them with
opentelemetry-proto, as a collector would. `OTEL_EXPORTER_OTLP_ENDPOINT=<url>` points a process at it."""

import threading
from http.server import BaseHTTPRequestHandler

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.common.loopback import LoopbackServer


class OtlpReceiver(LoopbackServer):
    def __init__(self):
        self.lock = threading.Lock()
        self.bodies = []
        super().__init__(self._handler())

    @property
    def url(self):
        return self.origin

    def raw(self):
        """Every body received, concatenated: what a search for a value sent must not find."""
        with self.lock:
            return b"".join(self.bodies)

    def spans(self):
        """[(service.name, span)] of every export received, decoded."""
        with self.lock:
            bodies = list(self.bodies)
        found = []
        for body in bodies:
            for resource_spans in ExportTraceServiceRequest.FromString(body).resource_spans:
                service = {a.key: a.value.string_value for a in resource_spans.resource.attributes}.get("service.name")
                found += [(service, span) for scope in resource_spans.scope_spans for span in scope.spans]
        return found

    def _handler(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path == "/v1/traces":
                    with receiver.lock:
                        receiver.bodies.append(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        return Handler
