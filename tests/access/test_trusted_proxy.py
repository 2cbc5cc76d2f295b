"""The IP allow-list behind the trusted proxy and without one, through a real waitress server on 127.0.0.1.

waitress alone decides REMOTE_ADDR (production.ini: trusted_proxy, trusted_proxy_count,
trusted_proxy_headers, clear_untrusted_proxy_headers); the application only reads REMOTE_ADDR
(`request.remote_addr`), never WebOb's `client_addr`, which is the leftmost X-Forwarded-For a client wrote.
"""

import http.client
import json

import pytest
from webtest.http import StopableWSGIServer

from tests.access.helpers import bearer

pytestmark = pytest.mark.commits  # the application answers from the server's threads

PROXY = "127.0.0.1"
ELSEWHERE = "127.0.0.2"  # any other loopback address: a client that is not the proxy


def _running(app, **proxy):
    running = StopableWSGIServer.create(app, host="127.0.0.1", port=0, threads=2, expose_tracebacks=False,
                                        **proxy)
    yield running
    running.shutdown()
    running.runner.join(5)


BEHIND_THE_PROXY = {"trusted_proxy": PROXY, "trusted_proxy_count": 1, "trusted_proxy_headers": "x-forwarded-for"}


@pytest.fixture
def server(app):
    """Behind the trusted proxy, as production.ini serves."""
    yield from _running(app, clear_untrusted_proxy_headers=True, **BEHIND_THE_PROXY)


# waitress drops X-Forwarded-For from untrusted peers unless `clear_untrusted_proxy_headers = false`; with it
# false the header reaches the application, which must still decide on REMOTE_ADDR alone.
@pytest.fixture(params=[True, False], ids=["headers-cleared", "headers-passed"])
def direct_server(app, request):
    """No trusted proxy, as development.ini serves: the peer is the client, whatever headers it sends."""
    yield from _running(app, clear_untrusted_proxy_headers=request.param)


@pytest.fixture
def server_passing_headers(app):
    """Behind the trusted proxy, with waitress passing other peers' X-Forwarded-For through."""
    yield from _running(app, clear_untrusted_proxy_headers=False, **BEHIND_THE_PROXY)


def _get(server, key, source, forwarded_for=None):
    connection = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10,
                                            source_address=(source, 0))
    headers = bearer(key)
    if forwarded_for:
        headers["X-Forwarded-For"] = forwarded_for
    try:
        connection.request("GET", "/v1/me", headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_the_forwarded_address_from_the_trusted_proxy_decides(world, server):
    key = world.key(clinic_id=world.clinic(), ip_allow=["203.0.113.0/24", "2001:db8::/32"])
    assert _get(server, key, PROXY, "203.0.113.9")[0] == 200
    assert _get(server, key, PROXY, "2001:db8::9")[0] == 200
    status, body = _get(server, key, PROXY, "198.51.100.1")
    assert (status, body["code"]) == (403, "ip_not_allowed")
    # Without the header, the proxy's own address is the caller: not on the list.
    assert _get(server, key, PROXY)[0] == 403


def test_only_the_hop_the_proxy_added_counts(world, server):
    """A caller cannot prepend an allowed address: with one trusted hop, the last entry is the client."""
    key = world.key(clinic_id=world.clinic(), ip_allow=["203.0.113.0/24"])
    status, body = _get(server, key, PROXY, "203.0.113.9, 198.51.100.1")
    assert (status, body["code"]) == (403, "ip_not_allowed")


def test_x_forwarded_for_from_an_untrusted_client_is_ignored(world, server):
    key = world.key(clinic_id=world.clinic(), ip_allow=["203.0.113.0/24"])
    status, body = _get(server, key, ELSEWHERE, "203.0.113.9")
    assert (status, body["code"]) == (403, "ip_not_allowed")
    # The untrusted client's real address is what the allow-list sees.
    allowed = world.key(clinic_id=world.clinic(), ip_allow=[f"{ELSEWHERE}/32"])
    assert _get(server, allowed, ELSEWHERE, "203.0.113.9")[0] == 200


def test_without_a_trusted_proxy_a_spoofed_x_forwarded_for_is_ignored(world, direct_server):
    key = world.key(clinic_id=world.clinic(), ip_allow=["203.0.113.0/24"])
    status, body = _get(direct_server, key, ELSEWHERE, "203.0.113.9")
    assert (status, body["code"]) == (403, "ip_not_allowed")
    allowed = world.key(clinic_id=world.clinic(), ip_allow=[f"{ELSEWHERE}/32"])
    assert _get(direct_server, allowed, ELSEWHERE, "203.0.113.9")[0] == 200


def test_behind_the_proxy_a_peer_that_is_not_the_proxy_is_decided_on_its_own_address(world,
                                                                                     server_passing_headers):
    key = world.key(clinic_id=world.clinic(), ip_allow=["203.0.113.0/24"])
    status, body = _get(server_passing_headers, key, ELSEWHERE, "203.0.113.9")
    assert (status, body["code"]) == (403, "ip_not_allowed")
    # The proxy's own forwarded address still decides.
    assert _get(server_passing_headers, key, PROXY, "203.0.113.9")[0] == 200


def test_behind_the_proxy_an_address_the_client_prepends_is_ignored(world, server):
    """The client sends its own X-Forwarded-For through the proxy, which appends the address it saw."""
    allowed = world.key(clinic_id=world.clinic(), ip_allow=["198.51.100.0/24"])
    assert _get(server, allowed, PROXY, "203.0.113.9, 198.51.100.1")[0] == 200
    spoofed = world.key(clinic_id=world.clinic(), ip_allow=["203.0.113.0/24"])
    status, body = _get(server, spoofed, PROXY, "203.0.113.9, 198.51.100.1")
    assert (status, body["code"]) == (403, "ip_not_allowed")
