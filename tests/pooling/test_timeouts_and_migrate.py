"""Timeouts that hold through a transaction pooler, and `migrate`, which refuses to run through one."""

import pytest
from sqlalchemy import create_engine, exc, text

from clinicrecords.db import make_engine
from clinicrecords.db.direct import MIGRATE_LOCK_KEY
from clinicrecords.db.session_settings import timeouts, verify_timeouts
from clinicrecords.settings import SettingsError, read
from tests.common.cli import admin, ok, refused
from tests.pooling.conftest import pooled_settings


def _ini(tmp_path, settings_lines):
    ini = tmp_path / "pooled.ini"
    # Every application needs a sender for its mail, the operator CLI's included.
    settings_lines = {"mail.sender": "Clinic Records <no-reply@clinicrecords.test>", **settings_lines}
    lines = (f"{name} = {value.replace('%', '%%')}" for name, value in settings_lines.items())
    ini.write_text("[app:main]\nuse = egg:clinicrecords\n" + "\n".join(lines) + "\n")
    return str(ini)


def test_every_server_connection_behind_the_pooler_carries_the_timeouts(settings, pgbouncer):
    engine = make_engine(read(pooled_settings(settings, pgbouncer)))
    try:
        seen = set()
        for _ in range(6):  # several transactions: the pooler may hand each another server connection
            with engine.connect() as connection:
                seen.add(connection.scalar(text("SELECT pg_backend_pid()")))
                assert connection.scalar(text("SHOW statement_timeout")) == "30s"
                assert connection.scalar(text("SHOW idle_in_transaction_session_timeout")) == "1min"
        verify_timeouts(engine, read(settings))
        assert timeouts(read(settings)) == {"statement_timeout": 30000, "idle_in_transaction_session_timeout": 60000}
    finally:
        engine.dispose()


def test_a_server_refuses_to_serve_through_a_pooler_without_the_configured_timeouts(settings, pgbouncer):
    engine = make_engine(read(pooled_settings(settings, pgbouncer)))
    try:
        with pytest.raises(SettingsError, match="migrate"):
            verify_timeouts(engine, read(dict(settings, **{"database.statement_timeout_ms": "5000"})))
    finally:
        engine.dispose()


def test_direct_startup_options_do_not_pass_a_stock_pgbouncer(settings, pgbouncer):
    """Why `database.pooled` exists: the direct connection's `options` parameter is refused by PgBouncer."""
    engine = make_engine(read(dict(settings, database_url=pgbouncer.url())))
    try:
        with pytest.raises(exc.OperationalError, match="unsupported startup parameter"):
            engine.connect().close()
    finally:
        engine.dispose()


def test_migrate_refuses_a_pooled_database_without_a_direct_url(tmp_path, settings, pgbouncer):
    ini = _ini(tmp_path, {"database_url": pgbouncer.url(), "database.pooled": "true",
                          "secrets.cursor": "x", "secrets.key_pepper": settings["secrets.key_pepper"],
                          "secrets.webhook_keys": settings["secrets.webhook_keys"], "huey.backend": "memory"})
    err = refused("migrate", ini=ini)
    assert "direct connection" in err and "database.direct_url" in err
    assert err.count("\n") == 1


def test_migrate_refuses_a_direct_url_that_goes_through_the_pooler(tmp_path, settings, pgbouncer):
    ini = _ini(tmp_path, {"database_url": pgbouncer.url(), "database.pooled": "true",
                          "database.direct_url": pgbouncer.url(),
                          "secrets.cursor": "x", "secrets.key_pepper": settings["secrets.key_pepper"],
                          "secrets.webhook_keys": settings["secrets.webhook_keys"], "huey.backend": "memory"})
    err = refused("migrate", ini=ini)
    assert "not one through a transaction pooler" in err


def test_migrate_runs_on_the_direct_url_and_sets_the_role_defaults(tmp_path, settings, pgbouncer, engine):
    direct = engine.url.render_as_string(hide_password=False)
    ini = _ini(tmp_path, {"database_url": pgbouncer.url(), "database.pooled": "true", "database.direct_url": direct,
                          "secrets.cursor": "x", "secrets.key_pepper": settings["secrets.key_pepper"],
                          "secrets.webhook_keys": settings["secrets.webhook_keys"], "huey.backend": "memory"})
    assert ok("migrate", ini=ini) == {"schemas_migrated": 0}
    with engine.connect() as connection:
        defaults = connection.scalar(text(
            "SELECT array_to_string(setconfig, ' ') FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole"
            " JOIN pg_database d ON d.oid = s.setdatabase WHERE r.rolname = current_user"
            " AND d.datname = current_database()"))
    assert "statement_timeout=30000" in defaults and "idle_in_transaction_session_timeout=60000" in defaults


def test_a_second_migrate_meanwhile_is_refused(tmp_path, settings, engine):
    direct = engine.url.render_as_string(hide_password=False)
    ini = _ini(tmp_path, {"database_url": direct, "secrets.cursor": "x",
                          "secrets.key_pepper": settings["secrets.key_pepper"],
                          "secrets.webhook_keys": settings["secrets.webhook_keys"], "huey.backend": "memory"})
    holder = create_engine(direct)
    try:
        with holder.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATE_LOCK_KEY})
            status, _, err = admin("migrate", ini=ini)
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATE_LOCK_KEY})
            connection.commit()
    finally:
        holder.dispose()
    assert status == 2 and "another migrate is running" in err
