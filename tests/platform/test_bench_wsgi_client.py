"""The in-process counts' caller (bench.wsgi_client) hands the real application what a server would, and
holds every answer to the status its scenario expects."""

import json
import urllib.request

import pytest

from bench.wsgi_client import WSGIClient
from tests.common.serving import serving


def test_a_get_reaches_the_application_and_its_answer_is_read_whole(app):
    client = WSGIClient(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})

    answer = json.loads(client.get("/v1/me", headers={"Authorization": "Bearer ehr_live_nothing"}, status=401))

    assert answer["code"] == "invalid_key"


def test_a_post_carries_its_json_body_and_its_headers(app):
    client = WSGIClient(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})

    # The Origin header reaches the entry, which refuses a browser before it reads the body or the key.
    answer = json.loads(client.post_json("/v1/me", {"any": "body"}, headers={"Origin": "https://example.org"},
                                         status=403))

    assert answer["code"] == "browser_not_allowed"


def test_an_answer_with_another_status_than_expected_fails_the_run(app):
    client = WSGIClient(app)

    with pytest.raises(AssertionError, match="401"):
        client.get("/v1/me")


@pytest.mark.commits  # waitress serves from its threads
def test_the_environ_says_of_the_body_what_waitress_says():
    seen = {}

    def capture(environ, start_response):
        seen[environ["REQUEST_METHOD"]] = {name: environ[name] for name in environ
                                           if name.startswith("wsgi.") and name != "wsgi.file_wrapper"}
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b""]

    with serving(capture, threads=1) as base_url:
        urllib.request.urlopen(f"{base_url}/v1/me", timeout=10).read()
    served = seen.pop("GET")

    WSGIClient(capture).get("/v1/me")

    assert seen["GET"].keys() == served.keys()
    for name in ("wsgi.input_terminated", "wsgi.url_scheme", "wsgi.multithread", "wsgi.multiprocess"):
        assert seen["GET"][name] == served[name], name
