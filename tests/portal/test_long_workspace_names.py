"""A workspace's name may be 200 characters; its sandbox clinic's name (the workspace's and " sandbox clinic")
is a clinic's name, at most 200 too: the workspace's part is shortened to fit, never a 500."""

import uuid

import pytest
from sqlalchemy import select

from clinicrecords.access.models import Workspace
from clinicrecords.clinics.models import Clinic
from tests.portal.helpers import error_summary, signed_up, submit


@pytest.mark.parametrize("length", [185, 186, 199, 200])
def test_a_long_workspace_name_gets_its_sandbox(app, engine, length):
    client, _ = signed_up(app)
    name = ("Acme Health " * 20)[:length - 1] + "Z"
    answer = submit(client.get("/portal/workspaces/new"), "workspace", name=name, status=303)
    workspace_id = uuid.UUID(answer.location.split("/portal/workspaces/")[1][:36])
    with engine.connect() as connection:
        assert connection.scalar(select(Workspace.name).where(Workspace.id == workspace_id)) == name
        sandbox = connection.scalar(select(Clinic.name).where(Clinic.sandbox_of_workspace_id == workspace_id))
    assert len(sandbox) <= 200 and sandbox.endswith(" sandbox clinic")
    if length <= 185:
        assert sandbox == f"{name} sandbox clinic"
    else:
        assert sandbox == f"{name[:184]}… sandbox clinic"


def test_a_name_over_200_characters_is_still_refused_by_the_form(app):
    client, _ = signed_up(app)
    refused = submit(client.get("/portal/workspaces/new"), "workspace", name="n" * 201, status=400)
    assert error_summary(refused) == ["Enter a name of at most 200 characters"]
