"""Names where pages hold ids: workspaces', clinics' and keys' names for a whole page in one statement."""

import uuid
from dataclasses import dataclass

from sqlalchemy import String, cast, literal, null, select, union_all

from clinicrecords.access.keys import masked
from clinicrecords.access.models import ApiKey, Workspace
from clinicrecords.clinics.services import clinic_name_rows


@dataclass(frozen=True)
class KeyName:
    """A key as people read it: `label` (its name, or its masked id) and `masked`."""

    name: str | None
    masked: str

    @property
    def label(self):
        return self.name or self.masked


@dataclass(frozen=True)
class DisplayNames:
    """What a page shows for the ids it holds: workspaces' and clinics' names by uuid, keys by public id."""

    workspaces: dict
    clinics: dict
    keys: dict  # public key id → KeyName


def display_names(db, workspace_ids=(), clinic_ids=(), key_ids=()):
    """The names of these workspaces, clinics and keys, in one statement for a whole page (an audit trail or a
    request log shows ids where people read names). Unknown ids are left out."""
    workspace_ids, clinic_ids, key_ids = set(workspace_ids), set(clinic_ids), set(key_ids)
    parts = []
    if workspace_ids:
        parts.append(select(literal("workspace").label("kind"), cast(Workspace.id, String).label("ref"),
                            Workspace.name.label("name"), null().label("mode"))
                     .where(Workspace.id.in_(workspace_ids)))
    if clinic_ids:
        clinics = clinic_name_rows(clinic_ids).subquery()
        parts.append(select(literal("clinic"), cast(clinics.c.id, String), clinics.c.name, null()))
    if key_ids:
        parts.append(select(literal("key"), ApiKey.key_id, ApiKey.name, ApiKey.mode).where(ApiKey.key_id.in_(key_ids)))
    names = DisplayNames({}, {}, {})
    if not parts:
        return names
    for kind, ref, name, mode in db.execute(union_all(*parts) if len(parts) > 1 else parts[0]):
        if kind == "key":
            names.keys[ref] = KeyName(name, masked(mode, ref))
        else:
            (names.workspaces if kind == "workspace" else names.clinics)[uuid.UUID(ref)] = name
    return names
