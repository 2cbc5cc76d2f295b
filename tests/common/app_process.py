"""The application served by waitress in a process of its own, on the suite's database: what a second server
process sees of changes made in this one (its own in-process caches included)."""

import contextlib
import json
import subprocess
import sys
import urllib.error
import urllib.request

from tests.common.consumer import consumer_config
from tests.conftest import ROOT

_SERVE = """
import sys
from pyramid.paster import get_appsettings
from waitress import create_server
from clinicrecords import make_config

app = make_config(dict(get_appsettings(sys.argv[1], "main"))).make_wsgi_app()
server = create_server(app, host="127.0.0.1", port=0, threads=4)
print(server.effective_port, flush=True)
server.run()
"""


@contextlib.contextmanager
def app_process(directory, engine):
    """Yields a `get(path, headers) -> (status, JSON body)` for the application in another process."""
    ini, env = consumer_config(directory, engine)
    process = subprocess.Popen([sys.executable, "-c", _SERVE, str(ini)], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(process.stdout.readline())

        def get(path, headers):
            call = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
            try:
                with urllib.request.urlopen(call, timeout=30) as answer:
                    return answer.status, json.loads(answer.read())
            except urllib.error.HTTPError as refused:
                return refused.code, json.loads(refused.read())

        yield get
    finally:
        process.terminate()
        process.wait(20)
        process.stdout.close()
