"""A real Huey consumer process on a file-backed queue, for the tests that kill or starve one."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT, TESTING_INI


def consumer_config(directory, engine, webhook_settings="webhooks.timeout_seconds = 2", extra=None):
    """(ini path, environment) for a consumer on `directory`'s queue (`directory`/huey.db) and `engine`'s
    database; `webhook_settings` replaces the test ini's `webhooks.timeout_seconds = 2` line, `extra` adds
    or replaces settings ({name: value})."""
    text = (Path(TESTING_INI).read_text().replace("%(here)s", str(ROOT))
            .replace("huey.backend = memory", "huey.backend = sqlite")
            .replace("huey.immediate = true", "huey.immediate = false")
            .replace("webhooks.timeout_seconds = 2", webhook_settings))
    for name, value in (extra or {}).items():
        line = f"{name} = {value}"
        text, replaced = re.subn(rf"^{re.escape(name)} =.*$", line, text, flags=re.MULTILINE)
        if not replaced:
            text = text.replace(webhook_settings, f"{webhook_settings}\n{line}", 1)
    ini = directory / "worker.ini"
    ini.write_text(text)
    env = dict(os.environ, CLINICRECORDS_VAR=str(directory),
               DATABASE_URL=engine.url.render_as_string(hide_password=False))
    return ini, env


def start_consumer(ini, env, workers=2, log=None):
    """The consumer in a session of its own; its output goes to `log` (an open file) or nowhere."""
    output = log or subprocess.DEVNULL
    return subprocess.Popen(
        [sys.executable, "-c", "from clinicrecords.tasks.worker import main; main()", str(ini),
         "--workers", str(workers)],
        cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
        start_new_session=True)


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
