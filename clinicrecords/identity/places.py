"""A place people belong to, as the identity context's team rules and messages name it: a workspace or a
clinic (its kind, id and name). The caller says it: identity reads no workspace (the access context owns
them)."""

import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class Place:
    kind: str           # "workspace" or "clinic" (an invitation's kind)
    id: uuid.UUID
    name: str

    @property
    def regarding(self):
        """What a message about it says it concerns: "the workspace Acme", "the clinic Test Clinic"."""
        return f"the {self.kind} {self.name}"

    @property
    def joining(self):
        """"the workspace Acme", "the staff of Test Clinic"."""
        return f"the workspace {self.name}" if self.kind == "workspace" else f"the staff of {self.name}"
