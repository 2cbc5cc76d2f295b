"""A database of the test's own (on the embedded server), so that a command walking every clinic (`database
restored`) touches only this test's clinics; and its security-events file under tmp_path."""

import configparser
import uuid

import pytest

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
