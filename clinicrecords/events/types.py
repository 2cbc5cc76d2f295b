"""Every event type, the permission a caller needs to see it, and whether it is addressed to one owner.

One table serves the feed (as a SQL condition) and webhooks (as a predicate), so both always agree.
Spec: Events → Event types; the additions inside v1 are documented in docs/events.md.
"""

from dataclasses import dataclass

from sqlalchemy import and_, false, or_

from clinicrecords.access.interfaces import ALL_PERMISSIONS, Permission
from clinicrecords.events.models import Event

# submission.decided needs the permission the kind was sent with (the submission routes' permission): the
# review queue names each kind's as the kind is registered (`permit_submission_kind`, at configuration, in every
# process that builds the application). `reported_medicine` is the name reported medicines' events were
# first recorded with: those stay visible with the permission they were sent with.
SUBMISSION_KIND_PERMISSIONS = {"reported_medicine": Permission.MedicationsWrite}


def permit_submission_kind(resource_type, permission):
    SUBMISSION_KIND_PERMISSIONS[resource_type] = permission


@dataclass(frozen=True)
class EventType:
    name: str
    permission: str | None = None          # a fixed permission, or
    by_resource_type: dict | None = None   # data.resource_type → permission
    addressed: bool = False                # only the owner in `audience_id` sees it
    echo: bool = False                     # tells its own writer nothing new (not delivered back to it)
    everyone: bool = False                 # every owner reaching the clinic sees it, whatever it holds

    def permitted(self, granted, data):
        if self.everyone:
            return True
        if self.by_resource_type is not None:
            permission = self.by_resource_type.get((data or {}).get("resource_type"))
            return permission is not None and permission in granted
        return self.permission in granted


EVENT_TYPES = {t.name: t for t in (
    EventType("inventory.availability.changed", Permission.InventoryAvailabilityRead),
    EventType("listing.freshness.changed", Permission.InventoryAvailabilityRead),
    EventType("inventory.item.created", Permission.InventoryItemsRead, echo=True),
    EventType("inventory.item.updated", Permission.InventoryItemsRead, echo=True),
    EventType("inventory.item.deleted", Permission.InventoryItemsRead, echo=True),
    EventType("submission.decided", by_resource_type=SUBMISSION_KIND_PERMISSIONS, addressed=True),
    EventType("patient_import.finished", Permission.PatientsWrite, addressed=True),
    # The clinic's records were restored to a point in time (docs/operations.md): whatever a partner reads,
    # what it read after `restored_to` may be gone or changed back.
    EventType("clinic.restored", everyone=True),
)}

PING = "webhook.ping"


def get(type_name):
    try:
        return EVENT_TYPES[type_name]
    except KeyError:
        raise ValueError(f"unknown event type {type_name!r}: add it to clinicrecords/events/types.py") from None


def visible(type_name, data, granted, owner_id, audience_id):
    """May an owner holding `granted` on the clinic see this event?"""
    event_type = EVENT_TYPES.get(type_name)
    if event_type is None or not event_type.permitted(granted, data):
        return False
    return audience_id is None or audience_id == owner_id


def visible_clause(granted, owner_id):
    """The same rule as `visible`, as a condition on Event rows."""
    clauses = []
    for event_type in EVENT_TYPES.values():
        audience = Event.audience_id.is_(None) | (Event.audience_id == owner_id)
        if event_type.everyone:
            clauses.append(and_(Event.type == event_type.name, audience))
        elif event_type.by_resource_type is not None:
            kinds = sorted(kind for kind, permission in event_type.by_resource_type.items() if permission in granted)
            if kinds:
                clauses.append(and_(Event.type == event_type.name, audience,
                                    Event.data["resource_type"].astext.in_(kinds)))
        elif event_type.permission in granted:
            clauses.append(and_(Event.type == event_type.name, audience))
    return or_(*clauses) if clauses else false()


__all__ = ["ALL_PERMISSIONS", "EVENT_TYPES", "PING", "get", "permit_submission_kind", "visible", "visible_clause"]
