"""Security events kept where a restore of the database cannot lose them (docs/operations.md).

A key revoked, a connection revoked or narrowed, a patient restricted, an encounter marked sensitive: a restore
of the database to an earlier time T brings each of these back undone. Each is therefore also appended, as one
JSON line, to the security-events file (`security.events_path`, off the database's disk) and logged on the
`clinicrecords.security_events` logger (the structured log stream); after a restore, `clinicrecords-admin
CONFIG database restored --to T --security-events FILE` applies again every one recorded after T.

The line is written, and fsynced, when the change is made, before its transaction commits: a change whose
transaction then rolls back is in the file too, and applying it again errs on the safe side (a revocation or a
restriction the operator then lifts), never the other way."""

import datetime
import json
import logging
import os

from clinicrecords import clock
from clinicrecords.db import tenancy
from clinicrecords.settings import var_dir

log = logging.getLogger("clinicrecords.security_events")

# Where sessions find the file: their sessionmaker's `info` (clinicrecords.db.includeme).
PATH = "security_events.path"

KEY_REVOKED = "key.revoked"
CONNECTION_REVOKED = "connection.revoked"
CONNECTION_NARROWED = "connection.narrowed"
PATIENT_RESTRICTED = "patient.restricted"
ENCOUNTER_SENSITIVE = "encounter.sensitive"
KINDS = (KEY_REVOKED, CONNECTION_REVOKED, CONNECTION_NARROWED, PATIENT_RESTRICTED, ENCOUNTER_SENSITIVE)


def path(settings):
    """`security.events_path`, or security-events.jsonl in the var dir (development, tests)."""
    return settings.security.events_path or str(var_dir(settings) / "security-events.jsonl")


class SecurityEventsError(ValueError):
    """The file cannot be read as security events; the message names the line."""


def bound_clinic_id(db):
    """The clinic whose schema `db` is bound to (None when it is not bound to one)."""
    clinic_id = tenancy.bound_clinic_id(db)
    return None if clinic_id is None else str(clinic_id)


def record(db, kind, **data):
    """Append the event to the file of `db`'s sessionmaker (when it has one) and log it."""
    if kind not in KINDS:
        raise ValueError(f"unknown security event {kind!r}")
    line = json.dumps({"at": clock.now().isoformat(), "kind": kind, **data}, default=str, sort_keys=True)
    log.info("security event %s", line)
    file = db.info.get(PATH)
    if file:
        descriptor = os.open(file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, (line + "\n").encode())
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def parse_time(text):
    return datetime.datetime.fromisoformat(text)


def read_after(file, moment):
    """The events of the file at `path` recorded after `moment` (an aware datetime), oldest first. A log
    stream's lines may carry a prefix before the JSON object ("... security event {...}"): it is skipped."""
    events = []
    with open(file, encoding="utf-8") as lines:
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                event = json.loads(text[text.index("{"):])
                at = datetime.datetime.fromisoformat(event["at"])
                if event["kind"] not in KINDS or at.tzinfo is None:
                    raise ValueError(event["kind"])
            except (ValueError, KeyError, TypeError):
                raise SecurityEventsError(f"{file} line {number} is not a security event") from None
            if at > moment:
                events.append(event)
    return sorted(events, key=lambda event: event["at"])
