"""The request log page: the workspace's requests of the last 7 days, newest first, filtered, in pages."""

import pytest

from clinicrecords.portal.developer.requests.forms import BAD_REQUEST_ID
from tests.portal.helpers import browser, create_key, error_summary, secret_of, with_workspace


@pytest.fixture
def flushed(registry):
    """Call after making API requests: the log is written off the request path, in batches."""
    return lambda: registry["request_log.writer"].flush(timeout=10)


def _bearer(secret):
    return {"Authorization": f"Bearer {secret}"}


def _rows(page):
    table = page.html.find(id="requests")
    if table is None:
        return []
    return [[cell.get_text(" ", strip=True) for cell in row.find_all("td")]
            for row in table.find("tbody").find_all("tr")]


def _missing_path(client, workspace_id):
    """A path under the workspace's sandbox clinic that answers 404 (with its problem code)."""
    overview = client.get(f"/portal/workspaces/{workspace_id}")
    sandbox = overview.html.find("dt", string="Sandbox clinic id").find_next("dd").get_text(strip=True)
    return f"/v1/clinics/{sandbox}/nothing-here"


def _requests(client, workspace_id, expect=200, **query):
    return client.get(f"/portal/workspaces/{workspace_id}/requests", params=query, status=expect)


def test_the_workspaces_requests_newest_first_without_query_values(app, flushed):
    client, workspace_id = with_workspace(app)
    first, second = (secret_of(create_key(client, workspace_id)) for _ in range(2))
    api = browser(app)
    me = api.get("/v1/me", headers=_bearer(first))
    refused = api.get("/v1/me?note=very-private-value", headers=_bearer(first), status=400)
    missing = api.get(_missing_path(client, workspace_id), headers=_bearer(second), status=404)
    other, other_id = with_workspace(app, name="Other Org")  # its own requests never show here
    api.get("/v1/me", headers=_bearer(secret_of(create_key(other, other_id))))
    assert flushed()
    rows = _rows(_requests(client, workspace_id))
    assert [row[7] for row in rows] == [answer.headers["X-Request-Id"] for answer in (missing, refused, me)]
    time, key, clinic, method, path, status, code, request_id, latency = rows[2]
    assert key == f"ehr_test_{first.split('_')[2][:4]}************" and clinic == ""
    assert (method, path, status) == ("GET", "/v1/me", "200")
    assert code == "" and latency.endswith(" ms") and len(time) == 19
    assert rows[1][3:7] == ["GET", "/v1/me", "400", "invalid_request"]
    assert rows[0][5:7] == ["404", missing.json["code"]]
    assert rows[0][2] == "Acme Health sandbox clinic"  # decision 0048: the clinic's name, not its id
    page = _requests(client, workspace_id)
    assert "very-private-value" not in page.text and first not in page.text
    client.get(f"/portal/workspaces/{other_id}/requests", status=404)


def test_filters_by_key_status_and_request_id(app, flushed):
    client, workspace_id = with_workspace(app)
    first, second = (secret_of(create_key(client, workspace_id)) for _ in range(2))
    api = browser(app)
    ids = [api.get("/v1/me", headers=_bearer(first)).headers["X-Request-Id"],
           api.get(_missing_path(client, workspace_id), headers=_bearer(second),
                   status=404).headers["X-Request-Id"],
           api.get("/v1/me", headers=_bearer(second)).headers["X-Request-Id"]]
    assert flushed()
    page = _requests(client, workspace_id)
    filtered = page.forms["filter"]
    filtered["key"] = first.split("_")[2]
    assert [row[7] for row in _rows(filtered.submit())] == [ids[0]]
    assert [row[7] for row in _rows(_requests(client, workspace_id, status="404"))] == [ids[1]]
    assert [row[7] for row in _rows(_requests(client, workspace_id, request_id=ids[2]))] == [ids[2]]
    none = _requests(client, workspace_id, status="500")
    assert _rows(none) == [] and "No requests match these filters" in none.text


def test_bad_filters_are_named(app):
    client, workspace_id = with_workspace(app)
    other, other_id = with_workspace(app, name="Other Org")
    foreign_key = secret_of(create_key(other, other_id)).split("_")[2]
    bad = _requests(client, workspace_id, expect=400, key=foreign_key, status="abc", request_id="x" * 41)
    assert error_summary(bad) == ["Choose one of the workspace's keys",
                                  "Enter an HTTP status from 100 to 599, such as 404",
                                  BAD_REQUEST_ID]
    assert bad.html.find(id="status")["value"] == "abc"
    stale = _requests(client, workspace_id, expect=400, before="not-a-cursor")
    assert error_summary(stale) == ["This page link is out of date: start again from the newest requests"]


def test_pages_of_fifty_with_older_and_newest_links(app, flushed):
    client, workspace_id = with_workspace(app)
    secret = secret_of(create_key(client, workspace_id))
    api = browser(app)
    ids = [api.get("/v1/me", headers=_bearer(secret)).headers["X-Request-Id"] for _ in range(52)]
    assert flushed()
    first = _requests(client, workspace_id, status="200")
    assert [row[7] for row in _rows(first)] == ids[::-1][:50]
    older = first.click(description="Older requests")
    assert [row[7] for row in _rows(older)] == ids[1::-1] and "status=200" in older.request.url
    assert "Older requests" not in older.text
    assert [row[7] for row in _rows(older.click(description="Newest requests"))] == ids[::-1][:50]
