"""The in-process counts' caller (bench.wsgi_client) hands the real application what a server would, and
holds every answer to the status its scenario expects."""

import json

import pytest

from bench.wsgi_client import WSGIClient


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
