"""The Quickstart's server: `pserve development.ini` on the embedded defaults, port from $PORT, loopback."""

import email
import email.policy
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.common.ports import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_pserve_serves_health_and_problems_on_port_from_env(tmp_path):
    port = free_port()
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
        # The ICD-10 code set loads as the server starts, not inside the first condition sent.
        deadline = time.monotonic() + 60
        while "warmed up: clinicrecords.clinical.terminology.load_icd10" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.5)
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


# `scripts/serve` for real, as a developer starts it elsewhere (`PORT=... scripts/serve`), on the suite's
# database with a var dir of its own, and the operator CLI run from another shell beside it.

ADMIN = Path(sys.executable).with_name("clinicrecords-admin")
ROUTINE = ("setup plugin alembic", "The following commands are available", "Huey consumer started",
           "Enqueueing periodic task", "Executing clinicrecords.", "executed in")


def _answers(url):
    """Whether the server answers; a refused connection says no at once, a loaded machine's slow answer is yes."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=30):
            return True
    except urllib.error.HTTPError as answered:
        answered.close()
        return True
    except OSError:
        return False


class ServedProcess:
    """`scripts/serve`'s output as it comes; for the banner's `Try:` line, whether the server answered then."""

    def __init__(self, env, url):
        self.url = url
        self.lines = []
        self.answered_at_try = None
        self.process = subprocess.Popen([str(ROOT / "scripts" / "serve")], env=env, cwd=ROOT, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def stop(self):
        """SIGTERM, as a supervisor stops it; the exit status, once its output is read to the end."""
        self.process.terminate()
        status = self.process.wait(30)
        self.reader.join(30)
        self.process.stdout.close()
        return status

    def _read(self):
        for line in self.process.stdout:
            if line.startswith("Try:"):
                self.answered_at_try = _answers(self.url)
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, predicate, what, seconds=300):
        """The lines `predicate` accepts, once there is one."""
        deadline = time.monotonic() + seconds
        while True:
            found = [line for line in list(self.lines) if predicate(line)]
            if found:
                return found
            assert self.process.poll() is None, "scripts/serve ended:\n" + "\n".join(self.lines)
            assert time.monotonic() < deadline, f"no {what} in:\n" + "\n".join(self.lines)
            time.sleep(0.2)


@pytest.fixture(scope="module")
def development_service(app, tmp_path_factory):
    var = tmp_path_factory.mktemp("served") / "var"
    env = {name: value for name, value in os.environ.items() if not name.startswith(("PYTEST_", "CLINICRECORDS_"))}
    env.update(DATABASE_URL=app.registry["db.engine"].url.render_as_string(hide_password=False),
               CLINICRECORDS_VAR=str(var))  # no SMTP server set: mail goes to files under var/mail
    port = free_port()
    served = ServedProcess({**env, "PORT": str(port)}, f"http://localhost:{port}")
    served.other_shell, served.var = env, var
    try:
        served.wait_for(lambda line: line.startswith("Developer portal"), "banner")
        yield served
    finally:
        assert served.stop() == 0, "\n".join(served.lines)


def _admin(served, *argv, ini="development.ini", **environ):
    """The operator CLI from another shell: the same database and var dir, not the server's $PORT."""
    result = subprocess.run([str(ADMIN), ini, *argv], env={**served.other_shell, **environ}, cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def _mailed(served, outbox_id):
    """The message the running service wrote under var/mail (no SMTP server in development)."""
    path = served.var / "mail" / f"{outbox_id}.eml"
    deadline = time.monotonic() + 60
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} was never written:\n" + "\n".join(served.lines)
        time.sleep(0.2)
    return email.message_from_bytes(path.read_bytes(), policy=email.policy.default).get_body(("plain",)).get_content()


def _outbox_id(served, before):
    """The one message written since `before` (a set of file names)."""
    deadline = time.monotonic() + 60
    while True:
        new = {path.stem for path in (served.var / "mail").glob("*.eml")} - before
        if new:
            [outbox_id] = new
            return outbox_id
        assert time.monotonic() < deadline, "no message written:\n" + "\n".join(served.lines)
        time.sleep(0.2)


def _written(served):
    folder = served.var / "mail"
    return {path.stem for path in folder.glob("*.eml")} if folder.exists() else set()


@pytest.mark.commits
def test_serve_prints_its_banner_once_the_server_answers_says_where_mail_goes_and_keeps_routine_lines_out(
        development_service):
    served = development_service
    assert served.answered_at_try is True, "the banner's curl line was printed before the server answered"
    [serving] = served.wait_for(lambda line: line.startswith("Serving Clinic Records API on"), "serving line")
    assert serving.startswith(f"Serving Clinic Records API on {served.url} (API reference: {served.url}/v1/docs; "
                              f"developer portal: {served.url}/portal/)")
    assert served.lines.index(serving) < served.lines.index("Try:")
    assert f"Mail: each message is written as a file under {served.var / 'mail'}/ (set CLINICRECORDS_SMTP_URL " \
           f"to send through an SMTP server)" in served.lines
    assert f"API reference: {served.url}/v1/docs" in served.lines
    assert f"Developer portal (sign up, create a workspace and a test key): {served.url}/portal/" in served.lines

    before = _written(served)
    queued, _ = _admin(served, "mail", "test", "--to", "someone@example.org")  # a task the consumer runs
    outbox_id = _outbox_id(served, before)
    [line] = served.wait_for(lambda line: line.startswith(f"mail {outbox_id} "), "line for the message")
    assert line == f"mail {outbox_id} (test) written to {served.var / 'mail' / f'{outbox_id}.eml'}"
    assert [line for line in served.lines if any(routine in line for routine in ROUTINE)] == []


@pytest.mark.commits
def test_the_operator_cli_in_another_shell_links_to_where_the_service_answers_and_says_so(development_service):
    served = development_service
    portal = f"{served.url}/portal"
    before = _written(served)
    created, note = _admin(served, "clinic", "create", "--name", "Harbour Clinic", "--admin-email",
                           "first-admin@example.org")
    link = created["admin_invitation"]["set_password_url"]
    assert link.startswith(f"{portal}/staff-invitations?token=")
    assert note == (f"clinicrecords-admin: note: the service running on this database answers at {served.url}, "
                    f"while the ini's listen with this shell's HOST and PORT, http://localhost:6543, names another "
                    f"address; links start with {portal}\n")
    mailed = _mailed(served, _outbox_id(served, before))
    assert link in mailed and f"Clinic Records: {portal}" in mailed
    with urllib.request.urlopen(link, timeout=10) as page:  # the first admin can join
        assert page.status == 200 and "password" in page.read().decode().lower()

    before = _written(served)
    staff, _ = _admin(served, "clinic", "staff", "add", "--clinic", created["clinic_id"], "--email",
                      "clinician@example.org", "--role", "clinician")
    assert staff["set_password_url"].startswith(f"{portal}/staff-invitations?token=")
    assert staff["set_password_url"] in _mailed(served, _outbox_id(served, before))

    before = _written(served)
    _admin(served, "mail", "test", "--to", "operator@example.org")
    assert f"Clinic Records: {portal}" in _mailed(served, _outbox_id(served, before))

    # In the server's own shell the CLI agrees with it and says nothing more.
    _, quiet = _admin(served, "clinic", "list", PORT=served.url.rpartition(":")[2])
    assert quiet == ""


@pytest.mark.commits
def test_a_set_api_base_url_still_wins_and_the_cli_says_the_service_answers_elsewhere(development_service,
                                                                                       tmp_path):
    served = development_service
    text = (ROOT / "development.ini").read_text().replace("%(here)s", str(ROOT))
    ini = tmp_path / "proxied.ini"
    ini.write_text(text.replace("[app:main]\n", "[app:main]\napi.base_url = http://clinicrecords.test:8080\n", 1))
    created, note = _admin(served, "clinic", "create", "--name", "Proxied Clinic", "--admin-email",
                           "proxied-admin@example.org", ini=str(ini))
    assert created["admin_invitation"]["set_password_url"].startswith(
        "http://clinicrecords.test:8080/portal/staff-invitations?token=")
    assert note == (f"clinicrecords-admin: note: the service running on this database answers at {served.url}, "
                    f"while api.base_url, http://clinicrecords.test:8080, names another address; links start with "
                    f"http://clinicrecords.test:8080/portal\n")
