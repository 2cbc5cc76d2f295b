"""The server runner moves what start-up and the warm-ups built out of the cyclic collector's passes: a full pass
then walks only what was made since, instead of stopping every thread for as long as walking the whole process
takes (170-210 ms for the start-up alone)."""

import os
import subprocess
import sys

from tests.conftest import ROOT, TESTING_INI

# The runner pserve calls (clinicrecords.serving), on the main thread as under pserve; a thread reports the
# collector's view once the runner has frozen, then ends the process.
SCRIPT = """
import gc, os, sys, threading, time
from pyramid.paster import get_app
from clinicrecords.serving import serve_waitress

def report_once(done, deadline):
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)
    print("collector:", gc.get_freeze_count(), len(gc.get_objects()), flush=True)


def report():
    deadline = time.monotonic() + 60
    report_once(gc.get_freeze_count, deadline)  # the start-up, before the first request
    started = gc.get_freeze_count()
    report_once(lambda: gc.get_freeze_count() > started, deadline)  # and the warm-ups' loads, once done
    os._exit(0)

app = get_app(sys.argv[1], "main")
threading.Thread(target=report, daemon=True).start()
serve_waitress(app, {}, listen="127.0.0.1:0")
"""


def test_the_served_process_keeps_its_start_up_and_warm_ups_out_of_the_collectors_passes(tmp_path):
    env = dict(os.environ, CLINICRECORDS_VAR=str(tmp_path / "var"))
    done = subprocess.run([sys.executable, "-c", SCRIPT, TESTING_INI], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (started, collected_after_start), (warmed, collected_after_warm_up) = (
        map(int, line.split()[1:]) for line in done.stdout.splitlines() if line.startswith("collector:"))
    assert started > 100_000, done.stdout  # the modules, mappers and registry the application was built with
    assert collected_after_start < started // 10, done.stdout
    assert warmed > started + 100_000, done.stdout  # the ICD-10 code set the warm-up loads
    assert collected_after_warm_up < warmed // 10, done.stdout
