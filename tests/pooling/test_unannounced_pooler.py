"""Behind PgBouncer without `database.pooled = true`, the web process and the worker refuse to start with one
line naming the setting, instead of starting and answering 503 forever (decision 0063). The same
evidence as `migrate`'s check that its connection is direct (`session_settings.pooler_evidence`)."""

import subprocess
import sys
from pathlib import Path

import pytest

from clinicrecords.db import check_ready_to_serve
from tests.conftest import ROOT

BIN = Path(sys.executable).parent
SERVER = """
[server:main]
use = egg:clinicrecords#waitress
listen = 127.0.0.1:0
"""


def _queue(tmp_path):
    """A queue a worker process can consume (the suite's is in memory, in immediate mode)."""
    return {"huey.backend": "sqlite", "huey.sqlite_path": tmp_path / "huey.db", "huey.immediate": "false"}


def _ini(tmp_path, settings, **overrides):
    """The suite's settings with `overrides`, and a server section as production.ini's (on loopback)."""
    values = {**settings, **overrides}
    lines = "".join(f"{name} = {str(value).replace('%', '%%')}\n" for name, value in values.items()
                    if name not in ("__file__", "here"))
    ini = tmp_path / "service.ini"
    ini.write_text("[app:main]\nuse = egg:clinicrecords\n" + lines + SERVER)
    return ini


def _start(command, ini):
    """The process's exit status and stderr; one still running after 60 s has started serving."""
    process = subprocess.Popen([str(BIN / command), str(ini)], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"{command} started behind the pooler without database.pooled")
    return process.returncode, err


@pytest.mark.parametrize("command", ["pserve", "clinicrecords-worker"])
def test_a_process_refuses_to_start_behind_a_pooler_it_was_not_told_of(tmp_path, settings, pgbouncer, command):
    ini = _ini(tmp_path, settings, database_url=pgbouncer.url(), **_queue(tmp_path))
    status, err = _start(command, ini)
    assert status == 2, err
    assert "Traceback" not in err
    # pserve announces itself first ("Starting server in PID ..."); the refusal is the one line after it.
    refusal = err.splitlines()[-1]
    assert refusal.startswith("clinicrecords: refusing to start: the database URL leads through a transaction "
                              "pooler") and "set database.pooled = true" in refusal, err
    assert sum(line.startswith("clinicrecords:") for line in err.splitlines()) == 1


def test_told_of_the_pooler_or_reaching_postgresql_directly_the_check_passes(app, pooled_app):
    check_ready_to_serve(pooled_app.registry)  # database.pooled = true behind PgBouncer
    check_ready_to_serve(app.registry)  # the suite's own application, straight to PostgreSQL
