"""A server process stopped with SIGTERM writes the request log's last batch before it exits."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT, TESTING_INI

# The server's own signal handling (clinicrecords.serving) with a writer that would wait an hour to flush.
SCRIPT = """
import os, signal, sys
import webtest
from pyramid.paster import get_appsettings
from clinicrecords import make_config
from clinicrecords.serving import _exit_cleanly_on_signals

settings = dict(get_appsettings(sys.argv[1], "main"), **{"request_log.flush_interval_ms": "3600000"})
client = webtest.TestApp(make_config(settings).make_wsgi_app(), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
answer = client.get("/v1/me", headers={"Authorization": "Bearer " + sys.argv[2]})
print(answer.headers["X-Request-Id"], flush=True)
_exit_cleanly_on_signals()
os.kill(os.getpid(), signal.SIGTERM)
signal.pause()
"""


@pytest.mark.commits  # the server runs in a process of its own and must read the key this test made
def test_sigterm_flushes_the_buffer(world, request_log):
    workspace_id, _ = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="test")
    done = subprocess.run([sys.executable, "-c", SCRIPT, TESTING_INI, key], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [row.request_id for row in request_log(workspace_id).rows] == [done.stdout.strip()]
