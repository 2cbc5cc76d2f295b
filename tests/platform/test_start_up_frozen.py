"""The server runner moves what start-up built out of the cyclic collector's passes: a full pass then walks only
what was made since, instead of stopping every thread for the ~200 ms it takes to walk the whole process."""

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

def report():
    deadline = time.monotonic() + 30
    while not gc.get_freeze_count() and time.monotonic() < deadline:
        time.sleep(0.05)
    print("collector:", gc.get_freeze_count(), len(gc.get_objects()), flush=True)
    os._exit(0)

app = get_app(sys.argv[1], "main")
threading.Thread(target=report, daemon=True).start()
serve_waitress(app, {}, listen="127.0.0.1:0")
"""


def test_the_served_process_keeps_its_start_up_out_of_the_collectors_passes(tmp_path):
    env = dict(os.environ, CLINICRECORDS_VAR=str(tmp_path / "var"))
    done = subprocess.run([sys.executable, "-c", SCRIPT, TESTING_INI], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("collector:"))
    frozen, still_collected = map(int, line.split()[1:])
    assert frozen > 100_000, done.stdout  # the modules, mappers and registry the application was built with
    assert still_collected < frozen // 10, done.stdout
