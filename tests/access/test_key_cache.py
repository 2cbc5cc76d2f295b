"""The in-process key cache (decision 0036): what it lets through on its own, the version that decides
whether an entry is still true, the triggers that move it, and what a warm request no longer sends."""

import datetime
import uuid

import pytest
import redis
from sqlalchemy import text, update

from clinicrecords.access.identity import ClinicFound, KeyIdentity, KeyRead
from clinicrecords.access.keycache import KeyCache
from clinicrecords.access.keys import hash_secret, parse_key
from clinicrecords.access.models import ApiKey, Workspace
from clinicrecords.access.ratelimit import RateLimiter
from clinicrecords.access.ratelimit_stores import PostgresStore, RedisStore
from clinicrecords.clinics.models import Clinic
from tests.common.statements import statements

PEPPER = "pepper"
NOW = datetime.datetime(2031, 1, 1, tzinfo=datetime.UTC)
PARSED = parse_key("ehr_live_" + "a" * 16 + "_" + "b" * 48)


def _key(**changes):
    values = dict(id=uuid.uuid4(), key_id=PARSED.key_id, mode="live", clinic_id=None, workspace_id=uuid.uuid4(),
                  scopes=frozenset(), ip_allow=(), rate_limit=None, created_at=NOW, expires_at=None,
                  cached_at_version=7)
    values.update(changes)
    return KeyIdentity(**values)


def _read(**changes):
    return KeyRead(_key(**changes))


def _usable(identity, parsed=None, now=NOW, address="127.0.0.1", secret=None, found=None):
    """The identity the cache lets through for a cached read of `identity` (and what it found of a clinic)."""
    cache = KeyCache()
    cache.put(PARSED.key_id, None, hash_secret(PEPPER, secret or PARSED.secret), KeyRead(identity, found))
    usable = cache.usable(PEPPER, parsed or PARSED, None, now, address)
    return usable.identity if usable is not None else None


def test_a_cached_key_is_let_through_only_with_its_secret_mode_time_and_address():
    identity = _key()
    assert _usable(identity) is identity
    assert _usable(identity, secret="c" * 48) is None
    assert _usable(_key(mode="test")) is None
    assert _usable(_key(expires_at=NOW)) is None
    assert _usable(_key(expires_at=NOW + datetime.timedelta(seconds=1))) is not None
    assert _usable(_key(ip_allow=("10.0.0.0/8",))) is None
    assert _usable(_key(ip_allow=("10.0.0.0/8",)), address="10.1.2.3") is not None
    expiring = ClinicFound(uuid.uuid4(), None, ("allergies:read",), NOW)
    assert _usable(_key(), found=expiring) is None


def test_the_cache_is_bounded_oldest_out_first():
    cache = KeyCache(size=2)
    for clinic in ("a", "b", "c"):
        cache.put(PARSED.key_id, clinic, b"h", _read())
    assert len(cache) == 2
    assert cache._entries.keys() == {(PARSED.key_id, "b"), (PARSED.key_id, "c")}
    off = KeyCache(size=0)
    off.put(PARSED.key_id, None, b"h", _read())
    assert len(off) == 0


def test_an_older_read_never_replaces_a_newer_entry():
    cache = KeyCache()
    cache.put(PARSED.key_id, None, b"new", _read(cached_at_version=8))
    cache.put(PARSED.key_id, None, b"old", _read(cached_at_version=7))
    assert cache._entries[(PARSED.key_id, None)].read.identity.cached_at_version == 8
    cache.put(PARSED.key_id, None, b"newer", _read(cached_at_version=9))
    assert cache._entries[(PARSED.key_id, None)].secret_hash == b"newer"


def _version(engine):
    with engine.connect() as connection:
        return connection.execute(text("SELECT version FROM control.reach_version")).scalar_one()


class _Caller:
    def __init__(self, version):
        self.id, self.workspace_id, self.mode, self.rate_limit = uuid.uuid4(), uuid.uuid4(), "live", None
        self.cached_at_version = version


def _counted(engine, api_key_id):
    with engine.connect() as connection:
        return connection.execute(text("SELECT count(*) FROM control.rate_limit_counters WHERE api_key_id = :id"),
                                  {"id": api_key_id}).scalar_one()


def test_the_postgres_store_counts_a_cached_key_only_at_its_version(engine):
    limiter, current = RateLimiter(PostgresStore(engine)), _version(engine)
    stale = _Caller(current - 1)
    assert limiter.hit(stale) is None and _counted(engine, stale.id) == 0
    assert limiter.hit(_Caller(current)).count == 1
    assert limiter.hit(_Caller(None)).count == 1  # read on this request: counted whatever the version


def test_the_redis_store_reads_the_version_from_postgres_first(engine, redis_url):
    client = redis.Redis.from_url(redis_url)
    limiter, current = RateLimiter(RedisStore(client, engine)), _version(engine)
    assert limiter.hit(_Caller(current - 1)) is None
    assert client.keys("clinicrecords:ratelimit:*") == [] and client.keys("clinicrecords:usage*") == []
    assert limiter.hit(_Caller(current)).count == 1


def test_every_change_to_keys_workspaces_connections_and_clinics_moves_the_version(world, engine):
    before = _version(engine)
    clinic_id = world.clinic()
    assert _version(engine) > before
    workspace_id, _ = world.workspace()
    key_id, _ = world.key_row(workspace_id=workspace_id, mode="live")
    steps = [lambda: world.grant(workspace_id, clinic_id),
             lambda: world.set_workspace(workspace_id, verified=False),
             lambda: world.revoke_connection(workspace_id, clinic_id),
             lambda: world.revoke_key(key_id)]
    for step in steps:
        before = _version(engine)
        step()
        assert _version(engine) > before, step
    with world.db() as db:
        before = _version(engine)
        db.execute(update(Workspace).where(Workspace.id == workspace_id).values(name="Renamed"))
        db.flush()
        assert _version(engine) > before


def test_the_request_paths_own_last_use_stamp_moves_nothing(world, engine):
    key_id, _ = world.key_row(clinic_id=world.clinic())
    before = _version(engine)
    with world.db() as db:
        assert db.execute(update(ApiKey).where(ApiKey.key_id == key_id).values(
            last_used_at=datetime.datetime.now(datetime.UTC), last_used_address="127.0.0.1")).rowcount == 1
    assert _version(engine) == before
    with world.db() as db:
        db.execute(update(ApiKey).where(ApiKey.key_id == key_id).values(ip_allow=["10.0.0.0/8"]))
    assert _version(engine) > before


def _key_statements(seen):
    return [s for s in seen if "control.api_keys" in s and s.lstrip().upper().startswith("SELECT")]


def _one_allergy(world, connected):
    from clinicrecords.clinical.schemas import SANDBOX_ALLERGY_ID

    key = world.key(workspace_id=connected.workspace_id, mode="test", rate_limit=5)
    return (f"/v1/clinics/{connected.sandbox_clinic_id}/allergies/{SANDBOX_ALLERGY_ID}",
            {"Authorization": f"Bearer {key}"})


def test_a_warm_get_one_runs_no_key_statement(world, testapp, engine, connected):
    url, headers = _one_allergy(world, connected)
    with statements(engine) as cold:
        testapp.get(url, headers=headers, status=200)
    with statements(engine) as warm:
        answer = testapp.get(url, headers=headers, status=200)
    assert len(_key_statements(cold)) == 1 and _key_statements(warm) == []
    assert answer.headers["RateLimit-Remaining"] == "3"  # the warm request was counted, once


def test_a_moved_version_reads_the_key_again_and_counts_once(world, testapp, engine, connected):
    url, headers = _one_allergy(world, connected)
    testapp.get(url, headers=headers, status=200)
    world.clinic()  # any change moves the version: the cached entry is no longer trusted
    with statements(engine) as read:
        answer = testapp.get(url, headers=headers, status=200)
    assert len(_key_statements(read)) == 1 and answer.headers["RateLimit-Remaining"] == "3"
    with statements(engine) as warm:
        testapp.get(url, headers=headers, status=200)
    assert _key_statements(warm) == []


def test_a_revoked_cached_key_hears_invalid_key_before_rate_limited(world, testapp, engine):
    clinic_id = world.clinic()
    key_id, key = world.key_row(clinic_id=clinic_id, rate_limit=2)
    headers = {"Authorization": f"Bearer {key}"}
    for _ in range(2):
        testapp.get(f"/v1/clinics/{clinic_id}/allergies", headers=headers, status=200)
    world.revoke_key(key_id)
    answer = testapp.get(f"/v1/clinics/{clinic_id}/allergies", headers=headers, status=401)
    assert answer.json["code"] == "invalid_key" and "RateLimit-Remaining" not in answer.headers


@pytest.mark.parametrize("secret", ["wrong", None])
def test_a_wrong_secret_or_unknown_key_is_refused_and_counts_nothing(world, testapp, engine, secret):
    clinic_id = world.clinic()
    _, key = world.key_row(clinic_id=clinic_id)
    testapp.get(f"/v1/clinics/{clinic_id}/allergies", headers={"Authorization": f"Bearer {key}"}, status=200)
    parsed = parse_key(key)
    key_id, secret_part = (parsed.key_id, "f" * 48) if secret else ("e" * 16, parsed.secret)
    bad = f"ehr_{parsed.mode}_{key_id}_{secret_part}"
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT count(*) FROM control.rate_limit_counters")).scalar_one()
    testapp.get(f"/v1/clinics/{clinic_id}/allergies", headers={"Authorization": f"Bearer {bad}"}, status=401)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM control.rate_limit_counters")).scalar_one() == rows


def test_a_clinics_schema_revision_moves_nothing_and_its_other_columns_do(world, engine):
    clinic_id = world.clinic()
    for change, moves in [({"schema_revision": "elsewhere"}, False), ({"name": "Renamed"}, True),
                          ({"api_access": False}, True)]:
        before = _version(engine)
        with world.db() as db:
            assert db.execute(update(Clinic).where(Clinic.id == clinic_id).values(**change)).rowcount == 1
        assert (_version(engine) > before) is moves, change


def test_a_secret_s_hash_is_the_hmac_of_the_pepper_and_the_secret():
    """Computed from a copy of the pepper's keyed state: the same digest, whatever was hashed before."""
    import hashlib
    import hmac

    for secret in ["", PARSED.secret, "ü" * 48, PARSED.secret[::-1]]:
        for pepper in [PEPPER, "another pepper"]:
            assert hash_secret(pepper, secret) == hmac.new(pepper.encode(), secret.encode(), hashlib.sha256).digest()
