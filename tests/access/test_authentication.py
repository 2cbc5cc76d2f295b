"""Spec, Authentication → Failures: every bad key is the same 401 invalid_key; the cause is never revealed."""

import datetime

import pytest

from clinicrecords.access.keys import parse_key

BODY_FIELDS_THAT_VARY = {"request_id"}


def _body(response):
    return {k: v for k, v in response.json.items() if k not in BODY_FIELDS_THAT_VARY}


@pytest.fixture
def reference_401(testapp):
    return _body(testapp.get("/v1/me", status=401))


def _bearer(key):
    return {"Authorization": f"Bearer {key}"}


def test_no_header(testapp, reference_401):
    assert _body(testapp.get("/v1/me", status=401)) == reference_401


@pytest.mark.parametrize("header", [
    "Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Token ehr_live_0123456789abcdef_" + "0" * 48,
    "Bearer ehr_live_", "Bearer ehr_prod_0123456789abcdef_" + "0" * 48, "Bearer ehr_live_XYZ_secret",
    "Bearer ehr_live_0123456789abcdef_" + "0" * 47,
])
def test_malformed(testapp, reference_401, header):
    assert _body(testapp.get("/v1/me", headers={"Authorization": header}, status=401)) == reference_401


def test_unknown_key_id(testapp, reference_401):
    assert _body(testapp.get("/v1/me", headers=_bearer("ehr_live_0123456789abcdef_" + "a" * 48),
                             status=401)) == reference_401


def test_wrong_secret(world, testapp, reference_401):
    key = parse_key(world.key(clinic_id=world.clinic()))
    forged = f"ehr_live_{key.key_id}_{'0' * 48}"
    assert _body(testapp.get("/v1/me", headers=_bearer(forged), status=401)) == reference_401


def test_wrong_mode_prefix(world, testapp, reference_401):
    workspace_id, _ = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    assert _body(testapp.get("/v1/me", headers=_bearer(key.replace("ehr_test_", "ehr_live_")),
                             status=401)) == reference_401


def test_revoked(world, testapp, reference_401):
    key_id, key = world.key_row(clinic_id=world.clinic())
    testapp.get("/v1/me", headers=_bearer(key), status=200)
    world.revoke_key(key_id)
    assert _body(testapp.get("/v1/me", headers=_bearer(key), status=401)) == reference_401


def test_expired(world, testapp, reference_401, engine):
    from sqlalchemy import update

    from clinicrecords.access.models import ApiKey

    key_id, key = world.key_row(clinic_id=world.clinic(),
                                expires_at=datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=1))
    testapp.get("/v1/me", headers=_bearer(key), status=200)
    with engine.begin() as connection:
        connection.execute(update(ApiKey).where(ApiKey.key_id == key_id).values(
            expires_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)))
    assert _body(testapp.get("/v1/me", headers=_bearer(key), status=401)) == reference_401


@pytest.mark.parametrize("parameter", ["api_key", "key", "access_token"])
def test_key_in_the_query_string_is_refused(connected, testapp, parameter):
    response = testapp.get(f"/v1/me?{parameter}={connected.key}", status=401)
    assert response.json["code"] == "invalid_key"
    assert connected.key not in response.text


def test_any_parameter_carrying_a_key_is_refused(connected, testapp):
    response = testapp.get(f"/v1/me?x={connected.key}", headers=connected.headers, status=401)
    assert "Authorization header" in response.json["detail"]


def test_the_secret_is_never_stored_in_clear(world, engine):
    from sqlalchemy import text

    key = world.key(clinic_id=world.clinic())
    secret = parse_key(key).secret
    with engine.connect() as connection:
        dump = connection.execute(text("SELECT string_agg(t::text, '|') FROM control.api_keys t")).scalar()
    assert secret not in dump
    assert secret.encode().hex() not in dump


def test_ip_allow_list(world, testapp):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id, ip_allow=["192.0.2.0/24", "2001:db8::/32"])
    for address in ("192.0.2.15", "2001:db8::7"):
        testapp.get("/v1/me", headers=_bearer(key), extra_environ={"REMOTE_ADDR": address}, status=200)
    for address in ("198.51.100.1", "2001:db9::1", "127.0.0.1"):
        response = testapp.get("/v1/me", headers=_bearer(key), extra_environ={"REMOTE_ADDR": address},
                               status=403)
        assert response.json["code"] == "ip_not_allowed"
        assert "192.0.2" not in response.text and "2001:db8" not in response.text


def test_a_key_never_reaches_the_request_log(connected, testapp, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="clinicrecords.request"):
        testapp.get(f"/v1/me?access_token={connected.key}", status=401)
        testapp.get(f"/v1/{connected.key}", headers=connected.headers, status=404)
        testapp.get("/v1/me", headers={"Authorization": f"Bearer {connected.key}x"}, status=401)
    assert len(caplog.records) == 3
    secret = parse_key(connected.key).secret
    assert all(secret not in record.getMessage() for record in caplog.records)
