"""`access.services.active_connections(now)`: the connections in force as a subquery another context composes
into its own statement (the event routing)."""

import datetime

from sqlalchemy import select

from clinicrecords.access.services import active_connections
from clinicrecords.clock import now as clock_now


def _active(db, now, workspace_id):
    connection = active_connections(now)
    rows = db.execute(select(connection.c.clinic_id, connection.c.scopes)
                      .where(connection.c.workspace_id == workspace_id))
    return {(clinic_id, tuple(scopes)) for clinic_id, scopes in rows}


def test_only_unrevoked_unexpired_connections_are_active_with_their_scopes(world):
    workspace_id, _ = world.workspace()
    standing, expiring, revoked = world.clinic("Standing"), world.clinic("Expiring"), world.clinic("Revoked")
    soon = clock_now() + datetime.timedelta(hours=1)
    world.grant(workspace_id, standing, {"patients:read"})
    world.grant(workspace_id, expiring, {"allergies:read", "allergies:write"}, expires_at=soon)
    world.grant(workspace_id, revoked, {"patients:read"})
    world.revoke_connection(workspace_id, revoked)
    with world.db() as db:
        assert _active(db, clock_now(), workspace_id) == {
            (standing, ("patients:read",)), (expiring, ("allergies:read", "allergies:write"))}
        # The same connections, read at a later `now`: the expiring one has lapsed.
        assert _active(db, soon + datetime.timedelta(seconds=1), workspace_id) == {(standing, ("patients:read",))}


def test_other_workspaces_connections_are_theirs(world):
    ours, _ = world.workspace()
    theirs, _ = world.workspace("Theirs")
    clinic_id = world.clinic()
    world.grant(theirs, clinic_id, {"patients:read"})
    with world.db() as db:
        assert _active(db, clock_now(), ours) == set()
        assert _active(db, clock_now(), theirs) == {(clinic_id, ("patients:read",))}
