"""The Quickstart's server: `pserve development.ini` on the embedded defaults, port from $PORT, loopback."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_pserve_serves_health_and_problems_on_port_from_env(tmp_path):
    port = _free_port()
    env = dict(os.environ, PORT=str(port), CLINICRECORDS_VAR=str(tmp_path / "var"))
    env.pop("DATABASE_URL", None)
    pserve = Path(sys.executable).with_name("pserve")
    log = tmp_path / "pserve.log"
    with log.open("wb") as output:
        server = subprocess.Popen([str(pserve), str(ROOT / "development.ini")], env=env, cwd=tmp_path,
                                  stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                    assert response.status == 200
                    break
            except OSError:
                assert server.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.5)
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/me", timeout=5)
        except urllib.error.HTTPError as error:
            error.close()
            assert error.code == 401
            assert error.headers["Content-Type"] == "application/problem+json"
        else:
            raise AssertionError("a request without a key must be refused")
    finally:
        server.terminate()
        assert server.wait(30) == 0, "SIGTERM stops the server and its in-process queue consumer"


def test_host_and_port_from_the_environment_replace_the_ini_listen():
    from clinicrecords.listening import listen_from_environment

    assert listen_from_environment("0.0.0.0:8080", {}) == "0.0.0.0:8080"
    assert listen_from_environment("0.0.0.0:8080", {"PORT": "9001"}) == "0.0.0.0:9001"
    assert listen_from_environment("0.0.0.0:8080", {"HOST": "127.0.0.1"}) == "127.0.0.1:8080"
    assert listen_from_environment("0.0.0.0:8080", {"HOST": "127.0.0.1", "PORT": "9001"}) == "127.0.0.1:9001"
    assert listen_from_environment("localhost", {"PORT": "9001"}) == "localhost:9001"


def test_serve_keeps_the_demo_keys_across_restarts_and_shows_the_reference(engine, make_app, tmp_path):
    """`scripts/serve --setup-only` twice (all of serve but the server) on the suite's database: the second
    start prints the first start's keys, and they work in an app with development.ini's secrets."""
    import re

    import webtest
    from pyramid.paster import get_appsettings

    env = dict(os.environ, DATABASE_URL=engine.url.render_as_string(hide_password=False),
               CLINICRECORDS_VAR=str(tmp_path / "var"))
    env.pop("PORT", None)

    def start():
        result = subprocess.run([str(ROOT / "scripts" / "serve"), "--setup-only"], env=env, cwd=tmp_path,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        return result.stdout, set(re.findall(r"ehr_(?:live|test)_[0-9a-f]{16}_[0-9a-f]{48}", result.stdout))

    first, first_keys = start()
    second, second_keys = start()
    assert len(first_keys) == 3 and second_keys == first_keys
    assert "new keys" in first and "the same keys as last time" in second
    assert "API reference: http://localhost:6543/v1/docs" in second

    pepper = get_appsettings(str(ROOT / "development.ini"), "main")["secrets.key_pepper"]
    development = webtest.TestApp(make_app(**{"secrets.key_pepper": pepper}),
                                  extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    for key in second_keys:
        development.get("/v1/me", headers={"Authorization": f"Bearer {key}"}, status=200)
