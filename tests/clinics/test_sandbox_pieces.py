"""`clinics.services.sandbox_workspace_of` and `sandbox_clinics_of`: a clinic's sandbox workspace and a
workspace's sandbox clinics, as statements another context composes (the event routing)."""

from sqlalchemy import select

from clinicrecords.clinics.services import sandbox_clinics_of, sandbox_workspace_of


def test_a_sandbox_clinic_names_its_workspace_and_a_real_clinic_none(world):
    workspace_id, sandbox_id = world.workspace()
    real_id = world.clinic()
    with world.db() as db:
        assert db.scalar(select(sandbox_workspace_of(sandbox_id))) == workspace_id
        assert db.scalar(select(sandbox_workspace_of(real_id))) is None


def test_a_workspace_has_its_own_sandbox_clinic_only(world):
    workspace_id, sandbox_id = world.workspace()
    _, other_sandbox_id = world.workspace("Other")
    world.clinic()
    with world.db() as db:
        assert list(db.scalars(sandbox_clinics_of(workspace_id))) == [sandbox_id]
        assert other_sandbox_id not in set(db.scalars(sandbox_clinics_of(workspace_id)))
