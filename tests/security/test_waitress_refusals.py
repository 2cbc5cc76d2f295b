"""What the real server answers to oversized or malformed requests: always problem+json, never a plain-text
page or a reset connection. Raw sockets against clinicrecords.serving's waitress on 127.0.0.1, configured
from production.ini's [server:main]."""

import configparser
import json
import logging
import socket
import threading
from pathlib import Path

import pytest

from clinicrecords.api.limits import SECURITY_HEADERS
from clinicrecords.serving import create_server
from clinicrecords.settings import SettingsError

MIB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_LIMITS = ("max_request_body_size", "max_request_header_size", "channel_timeout")


def _production_limits():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "production.ini")
    return {name: int(parser["server:main"][name]) for name in PRODUCTION_LIMITS}


@pytest.fixture
def server(app):
    running = create_server(app, host="127.0.0.1", port=0, threads=2, ident="", expose_tracebacks=False,
                            **_production_limits())
    runner = threading.Thread(target=running.run, daemon=True)
    runner.start()
    yield running
    running.task_dispatcher.shutdown()
    dispatchers = list(running._map.values())
    # Emptied first, closed after the loop has ended: a socket closed while the loop's select() holds its
    # descriptor fails that select (EBADF) in the server's thread.
    running._map.clear()
    runner.join(5)
    for dispatcher in dispatchers:
        dispatcher.handle_close()


class Answer:
    def __init__(self, raw):
        head, _, self.body = raw.partition(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        self.status = int(status_line.split(" ")[1])
        self.headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}

    def problem(self):
        assert self.headers["content-type"] == "application/problem+json"
        assert self.headers["x-request-id"].startswith("req_")
        for name, value in SECURITY_HEADERS.items():
            assert self.headers[name.lower()] == value
        problem = json.loads(self.body)
        assert problem["status"] == self.status and problem["request_id"] == self.headers["x-request-id"]
        return problem


def _connect(server):
    return socket.create_connection(("127.0.0.1", server.effective_port), timeout=30)


def _read_to_end(connection):
    """Everything the server sends until it closes: a reset here (ConnectionResetError) fails the test."""
    received = bytearray()
    while chunk := connection.recv(65536):
        received += chunk
    return bytes(received)


def _head(method, target, headers):
    """A request head; the connection closes after the answer, so reading to the end reads one answer."""
    headers = {"Host": "127.0.0.1", "Connection": "close", **headers}
    lines = [f"{method} {target} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    return "\r\n".join(lines).encode("latin-1")


def _send_all_then_read(server, head, body_chunks):
    """A client that does not wait for 100-continue: it writes the whole request, then reads the answer."""
    with _connect(server) as connection:
        connection.sendall(head)
        for chunk in body_chunks:
            connection.sendall(chunk)
        return Answer(_read_to_end(connection))


def _body(size, piece=MIB):
    while size > 0:
        yield b"x" * min(piece, size)
        size -= piece


def _import_head(connected, **headers):
    return _head("POST", f"/v1/clinics/{connected.clinic_id}/patient-imports",
                 {**connected.headers, "Content-Type": "application/json", **headers})


@pytest.mark.parametrize("size", [11 * MIB, 64 * MIB])
def test_an_oversized_import_sent_whole_gets_problem_json(server, connected, size):
    answer = _send_all_then_read(server, _import_head(connected, **{"Content-Length": size}), _body(size))
    assert answer.status == 413
    problem = answer.problem()
    assert problem["code"] == "payload_too_large"
    assert problem["detail"] == f"The body may be at most {10 * MIB} bytes."


def test_a_client_waiting_for_100_continue_gets_the_refusal_instead(server, connected):
    with _connect(server) as connection:
        connection.sendall(_import_head(connected, **{"Content-Length": 11 * MIB, "Expect": "100-continue"}))
        answer = Answer(_read_to_end(connection))
    assert answer.status == 413
    assert answer.problem()["code"] == "payload_too_large"


@pytest.mark.commits  # waitress serves from its threads
def test_a_body_within_its_route_limit_still_asks_to_continue(server, connected):
    body = json.dumps({"input_format": "json_array", "data": []}).encode()
    with _connect(server) as connection:
        connection.sendall(_import_head(connected, **{"Content-Length": len(body), "Expect": "100-continue"}))
        assert connection.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        connection.sendall(body)
        answer = Answer(_read_to_end(connection))
    # Read and judged by the application (an import without rows), not refused for its size.
    assert answer.status not in (413, 500) and answer.headers["content-type"].startswith("application/")


def _chunked(size, piece=MIB):
    for chunk in _body(size, piece):
        yield b"%x\r\n%s\r\n" % (len(chunk), chunk)
    yield b"0\r\n\r\n"


def test_a_chunked_body_over_even_the_servers_cap_gets_problem_json(server, connected):
    size = _production_limits()["max_request_body_size"] + 4 * MIB
    answer = _send_all_then_read(server, _import_head(connected, **{"Transfer-Encoding": "chunked"}),
                                 _chunked(size))
    assert answer.status == 413
    assert answer.problem()["code"] == "payload_too_large"


def test_a_chunked_body_over_its_route_limit_is_the_applications_answer(server, connected):
    answer = _send_all_then_read(server, _head("POST", f"/v1/clinics/{connected.clinic_id}/patients", {
        **connected.headers, "Content-Type": "application/json", "Transfer-Encoding": "chunked",
        "Idempotency-Key": "chunked"}), _chunked(2 * MIB))
    assert answer.status == 413
    assert answer.problem()["detail"] == f"The body may be at most {MIB} bytes."


def test_a_url_over_the_header_limit_is_414_uri_too_long(server, connected):
    answer = _send_all_then_read(server, _head("GET", "/v1/me?q=" + "a" * (17 * 1024), connected.headers), [])
    assert answer.status == 414
    assert answer.problem()["code"] == "uri_too_long"


def test_headers_over_the_limit_are_431_request_header_too_large(server, connected):
    answer = _send_all_then_read(server, _head("GET", "/v1/me", {**connected.headers, "X-Padding": "p" * 20000}),
                                 [])
    assert answer.status == 431
    assert answer.problem()["code"] == "request_header_too_large"


@pytest.mark.parametrize("head,code,status", [
    (b"GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ten\r\n\r\n", "invalid_request", 400),
    (b"POST /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n", "not_implemented", 501),
])
def test_malformed_http_gets_problem_json(server, head, code, status):
    answer = _send_all_then_read(server, head, [])
    assert (answer.status, answer.problem()["code"]) == (status, code)


@pytest.mark.commits  # waitress serves from its threads
def test_ordinary_requests_are_served_as_before(server, connected):
    with _connect(server) as connection:
        connection.sendall(_head("GET", "/v1/me", connected.headers))
        answer = Answer(_read_to_end(connection))
    assert answer.status == 200 and "server" not in answer.headers


def test_the_server_refuses_a_cap_that_is_not_above_every_route_limit(app):
    with pytest.raises(SettingsError, match="max_request_body_size"):
        create_server(app, host="127.0.0.1", port=0, max_request_body_size=10 * MIB)


@pytest.mark.parametrize("line", [b"Host : 127.0.0.1", b"X-Note: a\x00b"], ids=["space-before-colon", "nul"])
def test_a_malformed_header_line_is_answered_and_logged_without_a_traceback(server, caplog, capfd, line):
    head = b"GET /v1/me?secret=1 HTTP/1.1\r\n" + line + b"\r\nConnection: close\r\n\r\n"
    with caplog.at_level(logging.INFO):
        answer = _send_all_then_read(server, head, [])
    assert (answer.status, answer.problem()["code"]) == (400, "invalid_request")
    assert [record for record in caplog.records if record.exc_info] == []
    assert "Traceback" not in capfd.readouterr().err
    [line] = [json.loads(record.getMessage()) for record in caplog.records if record.name == "clinicrecords.request"]
    assert line == {"request_id": answer.headers["x-request-id"], "method": "GET", "route": "/v1/me",
                    "status": 400, "duration_ms": line["duration_ms"]}
