"""scripts/rehearse refuses to start without the secrets production.ini reads, as the service does, and
starts nothing then; the worker's ini departs from production.ini only where the rehearsal says so."""

import configparser
import os
import subprocess
import sys

from tests.rehearsal.stack import PRODUCTION_INI, ROOT, WORKER_OVERRIDES, ini_with, required_secrets


def test_the_secrets_are_those_production_ini_reads_from_the_environment():
    assert required_secrets() == ["CLINICRECORDS_CURSOR_SECRET", "CLINICRECORDS_KEY_PEPPER",
                                  "CLINICRECORDS_WEBHOOK_KEYS"]


def test_without_a_secret_it_exits_2_naming_it_and_starts_nothing(tmp_path):
    env = {name: value for name, value in os.environ.items() if name not in required_secrets()}
    env.update(CLINICRECORDS_CURSOR_SECRET="set", CLINICRECORDS_WEBHOOK_KEYS="")
    done = subprocess.run([sys.executable, "-m", "tests.rehearsal"], check=False, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "CLINICRECORDS_KEY_PEPPER" in done.stderr and "CLINICRECORDS_WEBHOOK_KEYS" in done.stderr
    assert "CLINICRECORDS_CURSOR_SECRET" not in done.stderr


def test_the_worker_ini_is_production_ini_with_only_the_listed_overrides(tmp_path):
    def settings(path):
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(path)
        return dict(parser["app:main"]), {name: dict(parser[name]) for name in parser.sections() if name != "app:main"}

    production, production_rest = settings(PRODUCTION_INI)
    worker, worker_rest = settings(ini_with(WORKER_OVERRIDES, tmp_path / "worker.ini"))
    assert worker == {**production, **WORKER_OVERRIDES} and worker_rest == production_rest


def test_the_sentinel_rehearsal_s_worker_departs_only_in_how_soon_a_lost_import_is_resumed():
    from tests.rehearsal.sentinel import SENTINEL_WORKER_OVERRIDES

    assert SENTINEL_WORKER_OVERRIDES == {**WORKER_OVERRIDES, "patient_imports.stale_after_seconds": "10"}


def test_an_unknown_switch_exits_2_naming_the_rehearsals_and_starts_nothing():
    done = subprocess.run([sys.executable, "-m", "tests.rehearsal", "--failvoer"], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "--failover" in done.stderr
