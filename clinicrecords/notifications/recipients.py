"""Who gets a notification: the people in a role of a workspace or a clinic (the identity context's memberships),
less those who turned that notification off."""

from dataclasses import dataclass

from clinicrecords.identity.services import memberships_in
from clinicrecords.notifications.preferences import NotificationSettings

OWNER, ADMIN, CLINICIAN = "owner", "admin", "clinician"


@dataclass(frozen=True)
class Person:
    account_id: object
    email: str


def workspace_owners(db, workspace_id):
    return [Person(row.account_id, row.email) for row in memberships_in(db).workspace_members(workspace_id)
            if row.role == OWNER]


def clinic_staff_in_role(db, clinic_id, role):
    return [Person(row.account_id, row.email) for row in memberships_in(db).staff_members(clinic_id)
            if role in row.roles]


def wanting(db, kind, people):
    """Those of `people` who did not turn `kind` off."""
    keep = set(NotificationSettings(db).wanting(kind, [person.account_id for person in people]))
    return [person for person in people if person.account_id in keep]
