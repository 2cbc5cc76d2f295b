"""A real Huey consumer process on a file-backed queue, for the tests that kill or starve one."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT, TESTING_INI


def consumer_config(directory, engine, webhook_settings):
    """(ini path, environment) for a consumer on `directory`'s queue; `webhook_settings` replaces the test
    ini's `webhooks.timeout_seconds = 2` line."""
    ini = directory / "worker.ini"
    ini.write_text(Path(TESTING_INI).read_text().replace("%(here)s", str(ROOT))
                   .replace("huey.backend = memory", "huey.backend = sqlite")
                   .replace("huey.immediate = true", "huey.immediate = false")
                   .replace("webhooks.timeout_seconds = 2", webhook_settings))
    env = dict(os.environ, CLINICRECORDS_VAR=str(directory),
               DATABASE_URL=engine.url.render_as_string(hide_password=False))
    return ini, env


def start_consumer(ini, env, workers=2):
    return subprocess.Popen(
        [sys.executable, "-c", "from clinicrecords.tasks.worker import main; main()", str(ini),
         "--workers", str(workers)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def stop_consumer(process, sig=signal.SIGTERM):
    """Signal the consumer's whole process group; one that ignores SIGTERM for 20 s is killed."""
    if process.poll() is None:
        os.killpg(process.pid, sig)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def wait_for(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False
