"""After the whole database was restored to a time T (docs/operations.md, "Restoring the whole database"):
every clinic's change feed moves past any seq it can have handed out after T, with a `clinic.restored` event,
and the security events recorded after T (clinicrecords/db/security_events.py) are applied again, in one
transaction: the service must not serve the restored copy before this has committed."""

import uuid
from collections import Counter

from clinicrecords.access.services import AccessError, narrow_again, revoke_connection, revoke_key
from clinicrecords.clinics.services import list_clinics, open_clinic
from clinicrecords.db import security_events
from clinicrecords.encounters.services import mark_sensitive_again
from clinicrecords.errors import InvalidInput
from clinicrecords.events.services import restart_after_restore
from clinicrecords.patients.services import set_restricted

# How far every clinic's counter moves past the last seq the copy holds: more events than any clinic hands
# out between a backup's point in time and the restore (docs/decisions/0134-feed-after-restore.md).
SEQ_GAP = 1_000_000_000


class RestoreError(InvalidInput):
    """Bad input for a restore; nothing was changed."""


def read_security_events(file, restored_to):
    try:
        return security_events.read_after(file, restored_to)
    except OSError as error:
        raise RestoreError(f"cannot read the security events {file}: {error.strerror}") from None
    except security_events.SecurityEventsError as error:
        raise RestoreError(str(error)) from None


def finish_whole_restore(db, restored_to, events, seq_gap=SEQ_GAP, progress=None):
    """Every clinic's feed restarted past T, then `events` (the security events recorded after T) applied
    again. What was done: the clinics, and per kind of event how many found their record in the copy and left
    it revoked, narrowed, restricted or sensitive (`applied`) and how many found no such record (made after T:
    `absent`)."""
    clinics = list_clinics(db, include_sandboxes=True)
    for done, clinic in enumerate(clinics, 1):
        open_clinic(db, clinic.id)
        restart_after_restore(db, clinic.id, restored_to, seq_gap)
        if progress:
            progress(done, len(clinics))
    applied, absent = Counter(), Counter()
    for event in events:
        (applied if apply_again(db, event) else absent)[event["kind"]] += 1
    return {"clinics": len(clinics), "applied": dict(applied), "absent": dict(absent)}


def apply_again(db, event):
    """One security event applied again; False when the copy has no such record."""
    kind = event["kind"]
    try:
        if kind == security_events.KEY_REVOKED:
            return bool(revoke_key(db, event["key_id"]))
        if kind == security_events.CONNECTION_REVOKED:
            return bool(revoke_connection(db, uuid.UUID(event["workspace_id"]), uuid.UUID(event["clinic_id"])))
    except AccessError:
        return False  # a key or connection made after T: the copy never had it
    if kind == security_events.CONNECTION_NARROWED:
        expires_at = event["expires_at"] and security_events.parse_time(event["expires_at"])
        return narrow_again(db, uuid.UUID(event["workspace_id"]), uuid.UUID(event["clinic_id"]),
                            event["scopes"], expires_at) is not None
    if open_clinic(db, uuid.UUID(event["clinic_id"])) is None:
        return False
    if kind == security_events.PATIENT_RESTRICTED:
        patient = set_restricted(db, uuid.UUID(event["patient_id"]), True)
        return patient is not None
    return mark_sensitive_again(db, uuid.UUID(event["encounter_id"])) is not None
