"""Whose webhook endpoints a caller manages: a workspace's (test and live) or a clinic's own (live).

Operators manage every endpoint (owner None); the portal always passes the signed-in member's workspace
(or, in the clinic console, the clinic), so an endpoint id of someone else reads as unknown."""

import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class Owner:
    workspace_id: uuid.UUID | None = None
    clinic_id: uuid.UUID | None = None

    def __post_init__(self):
        if (self.workspace_id is None) == (self.clinic_id is None):
            raise ValueError("an owner is exactly one workspace or one clinic")

    @classmethod
    def workspace(cls, workspace_id):
        return cls(workspace_id=workspace_id)

    @classmethod
    def clinic(cls, clinic_id):
        return cls(clinic_id=clinic_id)

    def owns(self, endpoint):
        return endpoint.workspace_id == self.workspace_id and endpoint.clinic_id == self.clinic_id
