"""Operator commands for keys, connections and listings: revoking twice, whole keys, scopes help, lists."""

import os
import subprocess
import sys

import pytest

from clinicrecords.access.interfaces import ALL_PERMISSIONS
from tests.common.cli import admin, ok, refused
from tests.conftest import TESTING_INI


def test_revoking_a_whole_key_revokes_it_and_never_prints_the_secret(world, testapp):
    clinic_id = world.clinic()
    created = ok("key", "create", "--clinic", clinic_id)
    secret = created["key"].rsplit("_", 1)[1]
    status, result, err = admin("key", "revoke", created["key"])
    assert status == 0 and result["key_id"] == created["key_id"]
    assert secret not in str(result) + err
    testapp.get("/v1/me", headers={"Authorization": f"Bearer {created['key']}"}, status=401)


@pytest.mark.parametrize("argument", [
    "ehr_live_0123456789abcdef_" + "a" * 47,  # a secret cut short: still never echoed
    "0123456789abcdef" + "secretish",
])
def test_key_revoke_refuses_a_malformed_key_without_echoing_it(argument):
    status, _, err = admin("key", "revoke", argument)
    assert status == 2 and argument not in err and "aaaa" not in err and "secretish" not in err


def test_an_unknown_whole_key_is_refused_naming_only_its_id():
    err = refused("key", "revoke", "ehr_test_0123456789abcdef_" + "b" * 48)
    assert "0123456789abcdef" in err and "bbbb" not in err


def test_revoking_again_exits_alike_for_keys_and_connections(world):
    clinic_id = world.clinic()
    workspace_id, _ = world.workspace()
    key_id = ok("key", "create", "--clinic", clinic_id)["key_id"]
    ok("connection", "grant", "--workspace", workspace_id, "--clinic", clinic_id, "--scopes", "patients:read")

    for argv in (("key", "revoke", key_id),
                 ("connection", "revoke", "--workspace", workspace_id, "--clinic", clinic_id)):
        first = ok(*argv)
        again = ok(*argv)
        assert (first["revoked"], first["already_revoked"]) == (True, False)
        assert (again["revoked"], again["already_revoked"]) == (True, True)
        assert again["revoked_at"] == first["revoked_at"], "the original revocation time is kept"


def test_scopes_help_lists_every_permission():
    for argv in (["key", "create", "--help"], ["connection", "grant", "--help"]):
        shown = subprocess.run([sys.executable, "-m", "clinicrecords.cli", TESTING_INI, *argv],
                               capture_output=True, text=True, timeout=60, env=dict(os.environ, COLUMNS="200"))
        assert shown.returncode == 0
        missing = [permission for permission in ALL_PERMISSIONS if permission not in shown.stdout]
        assert not missing, missing


def test_clinic_list_leaves_sandboxes_out_unless_asked(world):
    real = str(world.clinic(name="Listed Clinic"))
    _, sandbox = world.workspace()
    listed = {clinic["clinic_id"]: clinic for clinic in ok("clinic", "list")["clinics"]}
    assert listed[real]["name"] == "Listed Clinic" and listed[real]["sandbox_of_workspace_id"] is None
    assert str(sandbox) not in listed
    everything = {clinic["clinic_id"] for clinic in ok("clinic", "list", "--include-sandboxes")["clinics"]}
    assert {real, str(sandbox)} <= everything


def test_workspace_list(world):
    workspace_id, sandbox = world.workspace(name="Listed Workspace", paid=False)
    [listed] = [w for w in ok("workspace", "list")["workspaces"] if w["workspace_id"] == str(workspace_id)]
    assert listed["name"] == "Listed Workspace" and listed["plan"] == "sandbox"
    assert listed["sandbox_clinic_id"] == str(sandbox)


def test_key_list_shows_ids_and_settings_never_secrets_or_hashes(world):
    workspace_id, _ = world.workspace()
    world.ready_for_live(workspace_id)
    clinic_id = world.clinic()
    live = ok("key", "create", "--workspace", workspace_id, "--mode", "live", "--scopes", "patients:read")
    test = ok("key", "create", "--workspace", workspace_id, "--mode", "test")
    clinic_key = ok("key", "create", "--clinic", clinic_id)
    ok("key", "revoke", test["key_id"])

    result = ok("key", "list", "--workspace", workspace_id)
    by_id = {key["key_id"]: key for key in result["keys"]}
    assert set(by_id) == {live["key_id"], test["key_id"]}
    assert by_id[live["key_id"]]["masked"] == f"ehr_live_{live['key_id'][:4]}{'*' * 12}"
    assert by_id[live["key_id"]]["scopes"] == ["patients:read"]
    assert (by_id[live["key_id"]]["status"], by_id[test["key_id"]]["status"]) == ("active", "revoked")
    assert by_id[live["key_id"]]["owner"] == {"type": "workspace", "id": str(workspace_id)}
    assert [key["key_id"] for key in ok("key", "list", "--clinic", clinic_id)["keys"]] == [clinic_key["key_id"]]

    everything = str(ok("key", "list"))
    for created in (live, test, clinic_key):
        assert created["key_id"] in everything
        assert created["key"].rsplit("_", 1)[1] not in everything
    assert "hash" not in everything


def test_connection_list(world):
    workspace_id, _ = world.workspace()
    kept, dropped = world.clinic(), world.clinic()
    for clinic_id in (kept, dropped):
        ok("connection", "grant", "--workspace", workspace_id, "--clinic", clinic_id, "--scopes", "patients:read")
    ok("connection", "revoke", "--workspace", workspace_id, "--clinic", dropped)

    listed = ok("connection", "list", "--workspace", workspace_id)["connections"]
    assert [(c["clinic_id"], c["status"]) for c in listed] == [(str(kept), "active"), (str(dropped), "revoked")]
    assert listed[0]["scopes"] == ["patients:read"]
    [by_clinic] = ok("connection", "list", "--clinic", kept)["connections"]
    assert by_clinic["workspace_id"] == str(workspace_id)


@pytest.mark.parametrize("argv", [
    ("key", "list", "--workspace", "00000000-0000-4000-8000-000000000000"),
    ("key", "list", "--clinic", "nope"),
    ("connection", "list", "--clinic", "00000000-0000-4000-8000-000000000000"),
    ("key", "list", "--workspace", "00000000-0000-4000-8000-000000000000",
     "--clinic", "00000000-0000-4000-8000-000000000000"),
])
def test_list_filters_refuse_unknown_owners(argv):
    refused(*argv)


def test_key_create_takes_a_name_and_key_list_shows_it(world):
    """Decision 0046: `key create --name`, and `name` in `key list` (null for a key without one)."""
    workspace_id, _ = world.workspace()
    named = ok("key", "create", "--workspace", workspace_id, "--mode", "test", "--name", "  Billing server ")
    unnamed = ok("key", "create", "--workspace", workspace_id, "--mode", "test")
    twin = ok("key", "create", "--workspace", workspace_id, "--mode", "test", "--name", "Billing server")
    names = {key["key_id"]: key["name"] for key in ok("key", "list", "--workspace", workspace_id)["keys"]}
    assert names == {named["key_id"]: "Billing server", unnamed["key_id"]: None, twin["key_id"]: "Billing server"}
    assert "at most 100 characters" in refused("key", "create", "--workspace", workspace_id, "--mode", "test",
                                               "--name", "x" * 101)
