"""The links the operator CLI prints (`clinic staff add`, `portal invite-link`) point where the portal is
served: `portal.url` when set, else the host and port the ini (with $HOST and $PORT) has the server listen
on, `localhost` for an every-interface address (docs/decisions/0058-links-printed-outside-request.md)."""

from pathlib import Path

import pytest

from clinicrecords.listening import local_base_url
from tests.common.cli import ok
from tests.conftest import ROOT, TESTING_INI
from tests.portal.console_helpers import path_of
from tests.portal.helpers import browser, unique_email

SERVER = """
[server:main]
use = egg:clinicrecords#waitress
listen = {listen}
"""


@pytest.fixture
def ini_with(tmp_path):
    """An ini like the suite's with a [server:main] listening on `listen` and `app` settings added."""
    def write(listen, **app):
        text = Path(TESTING_INI).read_text().replace("%(here)s", str(ROOT))
        added = "".join(f"{name} = {value}\n" for name, value in app.items())
        path = tmp_path / f"operator-{len(list(tmp_path.iterdir()))}.ini"
        path.write_text(text.replace("[app:main]\n", "[app:main]\n" + added, 1) + SERVER.format(listen=listen))
        return str(path)
    return write


def _links(world, ini):
    clinic_id = world.clinic()
    workspace_id, _ = world.workspace()
    staff = ok("clinic", "staff", "add", "--clinic", clinic_id, "--email", unique_email("staff"), "--role",
               "admin", ini=ini)
    invite = ok("portal", "invite-link", "--workspace", workspace_id, "--email", unique_email("dev"), ini=ini)
    # The operator CLI's output is a contract: the same keys as ever (and, since roles combine, `roles`; since a
    # withheld message, `emailed`).
    assert set(staff) == {"clinic_id", "email", "role", "roles", "set_password_url", "expires_at"}
    assert set(invite) == {"workspace_id", "email", "role", "emailed", "invitation_url", "expires_at"}
    return staff["set_password_url"], invite["invitation_url"]


def test_links_use_the_port_the_ini_listens_on_with_localhost_for_every_interface(app, world, ini_with,
                                                                                  monkeypatch):
    monkeypatch.delenv("HOST", raising=False)
    monkeypatch.delenv("PORT", raising=False)
    staff, invite = _links(world, ini_with("0.0.0.0:7101"))
    assert staff.startswith("http://localhost:7101/portal/staff-invitations?token=")
    assert invite.startswith("http://localhost:7101/portal/invitations?token=")
    browser(app).get(path_of(staff), status=200)  # the path is the page's
    assert "invitation" in browser(app).get(path_of(invite), status=200).text.lower()


def test_host_and_port_from_the_environment_win_as_the_server_s_own_do(world, ini_with, monkeypatch):
    monkeypatch.setenv("HOST", "127.0.0.2")
    monkeypatch.setenv("PORT", "7102")
    staff, invite = _links(world, ini_with("localhost:6543"))
    assert staff.startswith("http://127.0.0.2:7102/portal/staff-invitations?token=")
    assert invite.startswith("http://127.0.0.2:7102/portal/invitations?token=")


def test_portal_url_when_set_is_the_links_base(world, ini_with, monkeypatch):
    monkeypatch.setenv("PORT", "7103")
    staff, invite = _links(world, ini_with("0.0.0.0:7101", **{"portal.url": "https://developers.example.com/"}))
    assert staff.startswith("https://developers.example.com/staff-invitations?token=")
    assert invite.startswith("https://developers.example.com/invitations?token=")


@pytest.mark.parametrize("listen,environ,base", [
    ("0.0.0.0:8080", {}, "http://localhost:8080"),
    ("[::]:8080", {}, "http://localhost:8080"),
    ("*:8080", {}, "http://localhost:8080"),
    ("[::1]:8080", {}, "http://[::1]:8080"),
    ("127.0.0.1:8080", {"PORT": "9001"}, "http://127.0.0.1:9001"),
    ("localhost:6543", {"HOST": "0.0.0.0", "PORT": "7101"}, "http://localhost:7101"),
    (None, {}, "http://localhost:6543"),
])
def test_the_local_base_url_of_a_listen_address(listen, environ, base):
    assert local_base_url(listen, environ) == base
