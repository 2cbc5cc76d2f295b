""""Check now" never stalls the service (decision 0067): a check waiting on DNS holds no database connection
and no transaction, the other checks of the same workspace (ten pressed at once) are refused at once, and API
requests made meanwhile are answered. Through the real server (waitress on 127.0.0.1, four threads) and a
nameserver on 127.0.0.1 that does not answer until the test lets it; the pool has two connections, so a check
holding one while it waits (and a second check waiting on its lock with the other) would leave nothing for
anyone else."""

import http.client
import threading
import urllib.parse

import pytest

from tests.common.serving import serving
from tests.onboarding.dns_server import HeldServer
from tests.onboarding.helpers import unique_domain
from tests.portal.helpers import error_summary, submit, with_workspace

pytestmark = pytest.mark.commits  # the real server's threads reach the database on connections of their own

API_REQUESTS = 5


def _post_check(url, workspace_id, cookie, token):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        connection.request("POST", f"/portal/workspaces/{workspace_id}/domain/check",
                           body=urllib.parse.urlencode({"csrf_token": token}),
                           headers={"Cookie": f"portal_session={cookie}",
                                    "Content-Type": "application/x-www-form-urlencoded"})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


def _get_me(url, key):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        connection.request("GET", "/v1/me", headers={"Authorization": f"Bearer {key}"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def _in_thread(target, *args):
    answer = {}
    done = threading.Event()

    def run():
        try:
            answer["value"] = target(*args)
        finally:
            done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return answer, done, thread


def test_a_check_waiting_on_dns_holds_no_connection_and_stalls_nothing(make_app, world):
    with HeldServer() as dns:
        app = make_app(**{"verification.nameservers": dns.address, "verification.dns_timeout_seconds": "30",
                          "database.pool_size": "2", "database.max_overflow": "0"})
        engine = app.registry["db.engine"]
        client, workspace_id = with_workspace(app)
        submit(client.get(f"/portal/workspaces/{workspace_id}/domain"), "domain-form", domain=unique_domain(),
               status=303)
        page = client.get(f"/portal/workspaces/{workspace_id}/domain")
        token = page.forms["check"]["csrf_token"].value
        cookie = client.cookies["portal_session"]
        key = world.key(workspace_id=workspace_id, mode="test")
        with serving(app) as url:
            first, first_done, first_thread = _in_thread(_post_check, url, workspace_id, cookie, token)
            try:
                assert dns.asked.wait(30), "the first check never asked the nameserver"
                # The first check waits on DNS: it holds no pooled connection (and so no transaction or lock).
                assert engine.pool.checkedout() == 0

                # The ten at once: the nine others are each refused at once.
                others = [_in_thread(_post_check, url, workspace_id, cookie, token) for _ in range(9)]
                assert all(done.wait(30) for _, done, _ in others), "a check waited for the first"
                assert not first_done.is_set()
                for answer, _, _ in others:
                    status, headers, body = answer["value"]
                    assert status == 429 and 1 <= int(headers["Retry-After"]) <= 30
                    assert "A check of this domain is running now" in body

                answered = 0
                for _ in range(API_REQUESTS):
                    if _get_me(url, key) == 200 and not first_done.is_set():
                        answered += 1
                assert answered == API_REQUESTS
                assert dns.queries == 1
            finally:
                dns.release()
                first_thread.join(60)
        assert first["value"][0] == 303
    shown = client.get(f"/portal/workspaces/{workspace_id}/domain")
    assert "The host does not exist in DNS yet" in shown.html.find(id="last-check").get_text()


def test_each_check_clears_its_claim_so_the_next_one_runs(make_app):
    """The claim goes with the recorded result: nothing is left running."""
    with HeldServer() as dns:
        dns.release()
        app = make_app(**{"verification.nameservers": dns.address, "portal.domain_check_interval_seconds": "0"})
        client, workspace_id = with_workspace(app)
        submit(client.get(f"/portal/workspaces/{workspace_id}/domain"), "domain-form", domain=unique_domain(),
               status=303)
        for _ in range(2):
            submit(client.get(f"/portal/workspaces/{workspace_id}/domain"), "check", status=303)
        assert dns.queries == 2
        page = client.get(f"/portal/workspaces/{workspace_id}/domain")
        assert error_summary(page) == []
