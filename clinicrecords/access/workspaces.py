"""Workspaces, and what keys and connections share: the error every access operation raises on bad input, the
owners they belong to, revoking once."""

import uuid
from dataclasses import dataclass

from sqlalchemy import select

from clinicrecords.access.models import ApiKey, Connection, Workspace
from clinicrecords.clinics.services import create_clinic, drop_sandbox_schema, find_clinic
from clinicrecords.clock import now as clock_now
from clinicrecords.errors import InvalidInput
from clinicrecords.mail.services import NAME_REFUSED, holds_link_or_key
from clinicrecords.identity.services import CURRENT_VERSION, record_terms_acceptance, terms_accepted as accepted


class AccessError(InvalidInput):
    """Bad input for an access operation; nothing was written."""


SANDBOX_SUFFIX = " sandbox clinic"
MAX_NAME = 200  # a workspace's, and a clinic's


def sandbox_name(workspace_name):
    """The sandbox clinic's name: the workspace's and " sandbox clinic", the workspace's shortened (with "…") when
    both would pass a clinic name's 200 characters."""
    room = MAX_NAME - len(SANDBOX_SUFFIX)
    if len(workspace_name) > room:
        workspace_name = workspace_name[:room - 1].rstrip() + "…"
    return workspace_name + SANDBOX_SUFFIX


def create_workspace(db, name, verified=False, paid=False, terms_accepted=False, seed=None, workspace_id=None,
                     terms_version=CURRENT_VERSION):
    """A workspace and its own sandbox clinic, seeded by `seed(db, clinic)`. `terms_accepted`: an operator
    records the workspace's acceptance of `terms_version` (the identity context's one record of it)."""
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME:
        raise AccessError(f"name must be 1 to {MAX_NAME} characters")
    if holds_link_or_key(name):
        raise AccessError(f"a workspace's name {NAME_REFUSED}")
    workspace = Workspace(id=workspace_id or uuid.uuid4(), name=name, verified=verified,
                          plan="paid" if paid else "sandbox")
    db.add(workspace)
    db.flush()
    if terms_accepted:
        record_terms_acceptance(db, workspace.id, terms_version)
    sandbox = create_clinic(db, sandbox_name(name), sandbox_of_workspace_id=workspace.id)
    workspace.sandbox_clinic_id = sandbox.id
    if seed is not None:
        seed(db, sandbox)
    return workspace


def get_workspace(db, workspace_id):
    workspace = db.get(Workspace, workspace_id)
    if workspace is None:
        raise AccessError(f"no workspace {workspace_id}")
    return workspace


def open_workspace(db, workspace_id):
    """The workspace, refused when it was closed (nothing new is made for it: no key, no connection)."""
    workspace = get_workspace(db, workspace_id)
    if workspace.closed_at is not None:
        raise AccessError(f"workspace {workspace_id} was closed")
    return workspace


@dataclass(frozen=True)
class Closing:
    """What closing a workspace ended: its keys' public ids and the clinics whose connections ended."""

    workspace: Workspace
    key_ids: list
    clinic_ids: list


def close_workspace(db, workspace_id, closed_by):
    """Close the workspace (decision 0094): every key revoked (the API answers them as revoked from the next
    request), every connection ended, its sandbox clinic's schema dropped; the row stays, marked closed, so
    the audit trail and usage exports still name it. Submissions it sent are the clinics' and stay. The
    caller removes the members and the webhook endpoints (their contexts'). Closing twice is refused."""
    workspace = db.get(Workspace, workspace_id, with_for_update=True)
    if workspace is None:
        raise AccessError(f"no workspace {workspace_id}")
    if workspace.closed_at is not None:
        raise AccessError(f"workspace {workspace_id} was closed")
    at = clock_now()
    keys = db.scalars(select(ApiKey).where(ApiKey.workspace_id == workspace.id, ApiKey.revoked_at.is_(None))
                      .with_for_update()).all()
    for key in keys:
        key.revoked_at = at
    connections = db.scalars(select(Connection).where(Connection.workspace_id == workspace.id,
                                                      Connection.revoked_at.is_(None)).with_for_update()).all()
    for connection in connections:
        connection.revoked_at = at
    if workspace.sandbox_clinic_id is not None:
        drop_sandbox_schema(db, workspace.sandbox_clinic_id)
    workspace.closed_at, workspace.closed_by = at, closed_by
    db.flush()
    return Closing(workspace, [key.key_id for key in keys], [connection.clinic_id for connection in connections])


def get_clinic(db, clinic_id):
    clinic = find_clinic(db, clinic_id)
    if clinic is None:
        raise AccessError(f"no clinic {clinic_id}")
    return clinic


def set_workspace(db, workspace_id, verified=None, paid=None, terms_accepted=None, terms_version=CURRENT_VERSION):
    """`terms_accepted`: as `create_workspace`'s (an acceptance is recorded; it is never taken back here)."""
    workspace = get_workspace(db, workspace_id)
    if verified is not None:
        workspace.verified = verified
    if paid is not None:
        workspace.plan = "paid" if paid else "sandbox"
    if terms_accepted:
        record_terms_acceptance(db, workspace.id, terms_version)
    return workspace


@dataclass(frozen=True)
class Revocation:
    """A key or connection after `revoke_*`: revoking again changes nothing and says so."""

    record: ApiKey | Connection
    already_revoked: bool


def revoke_once(record):
    """Revoke a key or a connection; one already revoked keeps its time."""
    already = record.revoked_at is not None
    if not already:
        record.revoked_at = clock_now()
    return Revocation(record, already)


def list_workspaces(db):
    """Rows of (Workspace, terms_accepted), oldest first."""
    return db.execute(select(Workspace, accepted(Workspace.id).label("terms_accepted"))
                      .order_by(Workspace.created_at, Workspace.id)).all()


def of_owner(db, model, oldest_first, workspace_id, clinic_id):
    """Keys or connections (`model`) of one workspace or clinic, or every one, oldest first."""
    query = select(model).order_by(oldest_first, model.id)
    if workspace_id is not None:
        query = query.where(model.workspace_id == get_workspace(db, workspace_id).id)
    if clinic_id is not None:
        query = query.where(model.clinic_id == get_clinic(db, clinic_id).id)
    return db.scalars(query).all()


def workspace_is_verified(db, workspace_id):
    """The flag the live-key gate reads (`not_verified`); domain verification and operators set it."""
    return get_workspace(db, workspace_id).verified
