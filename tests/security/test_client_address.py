"""The client's address is REMOTE_ADDR as the server left it, never a header the client wrote (decision
0069). WebOb's `client_addr` is the leftmost X-Forwarded-For; here a caller sends one naming an address it does
not have. The real waitress server, with and without a trusted proxy: tests/access/test_trusted_proxy.py."""

from pathlib import Path

from sqlalchemy import select

import clinicrecords
from clinicrecords.access.models import ApiKey
from tests.access.helpers import bearer

PEER = "192.0.2.10"
SPOOFED = "203.0.113.9"


def _as(peer, forwarded_for):
    return {"REMOTE_ADDR": peer, "HTTP_X_FORWARDED_FOR": forwarded_for}


def test_the_ip_allow_list_decides_on_remote_addr(world, testapp):
    clinic_id = world.clinic()
    spoofed = world.key(clinic_id=clinic_id, ip_allow=[f"{SPOOFED}/32"])
    refused = testapp.get("/v1/me", headers=bearer(spoofed), extra_environ=_as(PEER, SPOOFED), status=403)
    assert refused.json["code"] == "ip_not_allowed"
    allowed = world.key(clinic_id=clinic_id, ip_allow=[f"{PEER}/32"])
    testapp.get("/v1/me", headers=bearer(allowed), extra_environ=_as(PEER, SPOOFED), status=200)


def test_a_keys_last_use_records_remote_addr(world, testapp, engine):
    key_id, key = world.key_row(clinic_id=world.clinic())
    testapp.get("/v1/me", headers=bearer(key), extra_environ=_as(PEER, SPOOFED), status=200)
    with engine.connect() as connection:
        assert connection.scalar(select(ApiKey.last_used_address).where(ApiKey.key_id == key_id)) == PEER


def test_no_module_reads_webobs_client_addr():
    """A guard for code still to come: the request log, the audit trail, a new throttle."""
    package = Path(clinicrecords.__file__).parent
    readers = [str(path.relative_to(package)) for path in package.rglob("*.py") if "client_addr" in path.read_text()]
    assert readers == []
