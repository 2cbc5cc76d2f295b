"""A database of the test's own (on the embedded server), so that a command walking every clinic (`database
restored`) touches only this test's clinics; and its security-events file under tmp_path. A clone of it, as a
copy recovered to T (`clinic restore --from`) or as the old primary (`database restored --audit-from`)."""

import configparser
import uuid

import psycopg
import pytest
from psycopg import sql

from clinicrecords.db import embedded
from clinicrecords.settings import app_settings, var_dir
from tests.common.cli import ok
from tests.common.world import World
from tests.conftest import TESTING_INI


@pytest.fixture
def own_database(tmp_path, make_app, settings):
    """(ini path, World over that database, its security-events file, the application on it)."""
    name = f"clinicrecords_restore_{uuid.uuid4().hex[:12]}"
    events = tmp_path / "security-events.jsonl"
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(TESTING_INI)
    parser["app:main"]["database.name"] = name
    parser["app:main"]["security.events_path"] = str(events)
    # The var dir (the embedded server's) stays the suite's: the ini is elsewhere.
    parser["app:main"]["clinicrecords.var"] = settings["clinicrecords.var"]
    ini = tmp_path / "restore.ini"
    with ini.open("w") as file:
        parser.write(file)
    ok("migrate", "--workers", "1", ini=str(ini))
    app = make_app(**{"database.name": name, "security.events_path": str(events)})
    yield str(ini), World(app.registry), events, app
    app.registry["db.engine"].dispose()
    embedded.drop_database(var_dir(app_settings(app.registry)), name)


@pytest.fixture
def copy_at(own_database):
    """`copy_at()`: a clone of the test's database as it is now (T), and its URL; dropped after the test."""
    ini, world, _, app = own_database
    server = var_dir(app_settings(app.registry))
    production = app.registry["db.engine"].url
    made = []

    def clone():
        name = f"{production.database}_copy{len(made)}"
        app.registry["db.engine"].dispose()
        with psycopg.connect(embedded.superuser_url(server, "postgres"), autocommit=True) as admin:
            # A template must have no other session: the application's pooled ones are let go (above), any other ended.
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                          "AND pid <> pg_backend_pid()", (production.database,))
            admin.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(production.database)))
        made.append(name)
        return production.set(database=name).render_as_string(hide_password=False)

    yield clone
    for name in made:
        embedded.drop_database(server, name)
