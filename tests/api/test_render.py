"""The JSON writer every answer, webhook body and example goes through (clinicrecords.api.render)."""

import datetime
import decimal
import json
import math
import uuid

import pytest

from pyramid.response import Response

from clinicrecords.api.render import json_bytes, set_headers


def test_money_is_written_as_the_exact_decimal_never_through_a_float():
    assert json_bytes({"amount": decimal.Decimal("0.10"), "total": decimal.Decimal("12345678901234567.89")}) \
        == b'{"amount":0.10,"total":12345678901234567.89}'


@pytest.mark.parametrize("value", [decimal.Decimal("NaN"), decimal.Decimal("Infinity")])
def test_a_decimal_json_cannot_carry_is_refused_not_written(value):
    with pytest.raises(TypeError):
        json_bytes({"amount": value})


def test_a_float_json_cannot_carry_is_written_as_null_never_as_invalid_json():
    assert json_bytes({"lat": math.nan, "lng": math.inf}) == b'{"lat":null,"lng":null}'


def test_dates_uuids_sets_and_text_are_written_as_the_documents_promise():
    document = {
        "id": uuid.UUID("00000000-0000-4000-8000-000000000001"),
        "on": datetime.date(2026, 1, 2),
        "at": datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=datetime.UTC),
        "scopes": frozenset({"b.read", "a.read"}),
        "name": "Zoë",
        "nothing": None,
    }
    written = json_bytes(document)
    assert b" " not in written  # compact
    assert json.loads(written) == {"id": "00000000-0000-4000-8000-000000000001", "on": "2026-01-02",
                                   "at": "2026-01-02T03:04:05.000006+00:00", "scopes": ["a.read", "b.read"],
                                   "name": "Zoë", "nothing": None}
    assert "Zoë".encode() in written  # UTF-8, not \u escapes


def test_headers_set_together_replace_the_answer_s_own_whatever_their_case_and_keep_the_rest():
    response = Response(body=b"{}", content_type="application/json", charset=None)
    response.headerlist.extend([("ratelimit-remaining", "9"), ("X-Kept", "yes"), ("RateLimit-Remaining", "8")])
    webob_update = Response(body=b"{}", content_type="application/json", charset=None)
    webob_update.headerlist.extend(response.headerlist[len(webob_update.headerlist):])
    headers = {"RateLimit-Limit": "10", "RateLimit-Remaining": "7"}
    set_headers(response, headers)
    webob_update.headers.update(headers)
    assert response.headerlist == webob_update.headerlist
    assert response.headers.getall("RateLimit-Remaining") == ["7"] and response.headers["X-Kept"] == "yes"
    set_headers(response, {})
    assert response.headerlist == webob_update.headerlist
