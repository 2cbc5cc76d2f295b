"""The operator CLI's contract: one JSON object on stdout and exit 0; bad input → stderr, exit 2, no change."""

import json
import subprocess
import sys
import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.access.models import ApiKey, Connection, Workspace
from clinicrecords.clinics.models import Clinic
from clinicrecords.identity.services import terms_accepted as has_accepted
from tests.common.cli import admin, refused
from tests.conftest import TESTING_INI


@pytest.fixture
def counts(engine):
    def count():
        with engine.connect() as connection:
            return tuple(connection.execute(select(func.count()).select_from(model)).scalar()
                         for model in (Clinic, Workspace, ApiKey, Connection))
    return count


def test_migrate(app):
    assert admin("migrate") == (0, {"schemas_migrated": 0}, "")


def test_clinic_create(engine):
    status, result, _ = admin("clinic", "create", "--name", "Lakeside Pharmacy", "--kind", "pharmacy",
                              "--currency", "EUR", "--lat", "52.37", "--lng", "4.89")
    assert status == 0
    with engine.connect() as connection:
        clinic = connection.execute(select(Clinic).where(Clinic.id == uuid.UUID(result["clinic_id"]))).one()
    assert (clinic.name, clinic.kind, clinic.currency) == ("Lakeside Pharmacy", "pharmacy", "EUR")


@pytest.mark.parametrize("argv", [
    ("clinic", "create"),
    ("clinic", "create", "--name", ""),
    ("clinic", "create", "--name", "X", "--kind", "hospital"),
    ("clinic", "create", "--name", "X", "--currency", "dollars"),
    ("clinic", "create", "--name", "X", "--lat", "95", "--lng", "0"),
    ("clinic", "create", "--name", "X", "--lat", "10"),
    ("clinic", "create", "--name", "X", "--lat", "north", "--lng", "0"),
])
def test_clinic_create_refuses_bad_input_and_changes_nothing(counts, argv):
    before = counts()
    refused(*argv)
    assert counts() == before


def test_workspace_create_and_set(engine):
    status, result, _ = admin("workspace", "create", "--name", "Acme Health", "--verified")
    assert status == 0
    workspace_id = uuid.UUID(result["workspace_id"])
    with engine.connect() as connection:
        workspace = connection.execute(select(Workspace).where(Workspace.id == workspace_id)).one()
    assert (workspace.verified, workspace.plan, _terms_accepted(engine, workspace_id)) == (True, "sandbox", False)
    assert str(workspace.sandbox_clinic_id) == result["sandbox_clinic_id"]

    assert admin("workspace", "set", str(workspace_id), "--unverified", "--paid", "--terms-accepted") == (
        0, {"workspace_id": str(workspace_id)}, "")
    with engine.connect() as connection:
        workspace = connection.execute(select(Workspace).where(Workspace.id == workspace_id)).one()
    assert (workspace.verified, workspace.plan, _terms_accepted(engine, workspace_id)) == (False, "paid", True)


def _terms_accepted(engine, workspace_id):
    with engine.connect() as connection:
        return connection.scalar(select(has_accepted(workspace_id)))


@pytest.mark.parametrize("argv", [
    ("workspace", "create"),
    ("workspace", "set", "not-a-uuid"),
    ("workspace", "set", str(uuid.uuid4()), "--verified"),
    ("workspace", "set", str(uuid.uuid4()), "--verified", "--unverified"),
])
def test_workspace_commands_refuse_bad_input(counts, argv):
    before = counts()
    refused(*argv)
    assert counts() == before


def test_key_create_and_revoke(world, testapp):
    clinic_id = world.clinic()
    status, result, _ = admin("key", "create", "--clinic", str(clinic_id))
    assert status == 0
    assert result["key"].startswith(f"ehr_live_{result['key_id']}_")
    headers = {"Authorization": f"Bearer {result['key']}"}
    testapp.get("/v1/me", headers=headers, status=200)
    status, revoked, _ = admin("key", "revoke", result["key_id"])
    assert (status, revoked["key_id"], revoked["revoked"], revoked["already_revoked"]) == (
        0, result["key_id"], True, False)
    testapp.get("/v1/me", headers=headers, status=401)


def test_workspace_keys_with_options(world):
    workspace_id, _ = world.workspace()
    status, result, _ = admin("key", "create", "--workspace", str(workspace_id), "--mode", "test",
                              "--ip-allow", "10.0.0.0/8", "--ip-allow", "2001:db8::/32",
                              "--expires-at", "2099-01-01T00:00:00Z", "--scopes", "allergies:read",
                              "--rate-limit", "50")
    assert status == 0
    assert result["key"].startswith("ehr_test_")


@pytest.mark.parametrize("argv", [
    ("key", "create"),
    ("key", "create", "--clinic", "nope"),
    ("key", "create", "--clinic", str(uuid.uuid4())),
    ("key", "create", "--workspace", str(uuid.uuid4()), "--mode", "live"),
    ("key", "revoke", "0000000000000000"),
])
def test_key_commands_refuse_bad_input(counts, argv):
    before = counts()
    refused(*argv)
    assert counts() == before


def test_key_create_refuses_bad_options_for_real_owners(world, counts):
    clinic_id = world.clinic()
    workspace_id, sandbox_id = world.workspace()
    before = counts()
    for argv in [
        ("--clinic", str(clinic_id), "--clinic", str(clinic_id), "--workspace", str(workspace_id)),
        ("--workspace", str(workspace_id)),
        ("--workspace", str(workspace_id), "--mode", "staging"),
        ("--clinic", str(clinic_id), "--mode", "test"),
        ("--clinic", str(sandbox_id)),
        ("--clinic", str(clinic_id), "--ip-allow", "10.0.0.300/8"),
        ("--clinic", str(clinic_id), "--expires-at", "yesterday"),
        ("--clinic", str(clinic_id), "--expires-at", "2001-01-01T00:00:00Z"),
        ("--clinic", str(clinic_id), "--scopes", "allergies:read,everything:write"),
        ("--clinic", str(clinic_id), "--rate-limit", "0"),
    ]:
        refused("key", "create", *argv)
    assert counts() == before


def test_connection_grant_replace_and_revoke(world, testapp):
    clinic_id = world.clinic()
    workspace_id, _ = world.workspace()
    key = world.key(workspace_id=workspace_id, mode="live")
    headers = {"Authorization": f"Bearer {key}"}
    status, first, _ = admin("connection", "grant", "--workspace", str(workspace_id), "--clinic", str(clinic_id),
                             "--scopes", "patients:read,allergies:read")
    assert status == 0
    status, second, _ = admin("connection", "grant", "--workspace", str(workspace_id), "--clinic",
                              str(clinic_id), "--scopes", "patients:read")
    assert second == first
    entry = testapp.get("/v1/connections", headers=headers).json["data"][0]
    assert entry["scopes"] == ["patients:read"]
    status, revoked, _ = admin("connection", "revoke", "--workspace", str(workspace_id), "--clinic", str(clinic_id))
    assert (status, revoked["connection_id"], revoked["already_revoked"]) == (0, first["connection_id"], False)
    assert testapp.get("/v1/connections", headers=headers).json["data"] == []


@pytest.mark.parametrize("scopes", ["", "patients:read,nonsense:read"])
def test_connection_grant_refuses_bad_scopes(world, counts, scopes):
    clinic_id = world.clinic()
    workspace_id, _ = world.workspace()
    before = counts()
    refused("connection", "grant", "--workspace", str(workspace_id), "--clinic", str(clinic_id), "--scopes", scopes)
    refused("connection", "revoke", "--workspace", str(workspace_id), "--clinic", str(clinic_id))
    assert counts() == before


def test_connection_to_a_sandbox_is_refused(world, counts):
    workspace_id, sandbox_id = world.workspace()
    before = counts()
    refused("connection", "grant", "--workspace", str(workspace_id), "--clinic", str(sandbox_id),
            "--scopes", "patients:read")
    assert counts() == before


def test_demo_creates_once_and_prints_fresh_keys(testapp):
    status, first, _ = admin("demo")
    assert status == 0
    status, second, _ = admin("demo")
    assert (first["workspace_id"], first["clinic_id"]) == (second["workspace_id"], second["clinic_id"])
    assert first["keys"]["live"] != second["keys"]["live"]
    testapp.get("/v1/me", headers={"Authorization": f"Bearer {first['keys']['live']}"}, status=401)
    for key in second["keys"].values():
        testapp.get("/v1/me", headers={"Authorization": f"Bearer {key}"}, status=200)
    assert second["keys"]["live"] in second["curl"]


def test_console_script_speaks_the_contract(app):
    script = [sys.executable, "-m", "clinicrecords.cli", TESTING_INI]
    ok = subprocess.run([*script, "migrate"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == {"schemas_migrated": 0}
    bad = subprocess.run([*script, "clinic", "create", "--name", "X", "--kind", "zoo"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert "kind" in bad.stderr


def test_contexts_share_a_command_group():
    """`item review` (review queue) and `item create|link|unlink` (inventory) live under one `item`."""
    from clinicrecords.cli import build_parser

    parser = build_parser()
    for argv in (["x.ini", "item", "review", "--clinic", str(uuid.uuid4()), "--kind", "allergy", str(uuid.uuid4())],
                 ["x.ini", "item", "link", "--clinic", str(uuid.uuid4()), str(uuid.uuid4())]):
        assert callable(parser.parse_args(argv).handler)
