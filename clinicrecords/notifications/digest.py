"""The daily review digest: each morning (the clinic's local time), a clinic's clinicians learn how many
submissions wait in its review queue and how long the oldest has waited: numbers only, never a patient or an
item. Nothing is sent while the queue is empty.

Each clinic's digest runs in a transaction of its own: it first records the clinic's local day
(`ReviewDigest`, one row per clinic and day), then writes the messages; a second worker, or the next hourly
run, finds the day taken and sends nothing. A worker that was down at the hour sends the day's digest at its
next run that day. Each run prunes the records older than a week.
"""

import datetime
import zoneinfo

from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert

from clinicrecords import clock
from clinicrecords.clinics.services import list_clinics, open_clinic
from clinicrecords.notifications import kinds
from clinicrecords.notifications.models import ReviewDigest
from clinicrecords.notifications.recipients import CLINICIAN, clinic_staff_in_role
from clinicrecords.notifications.sending import clinic_regarding, notify
from clinicrecords.publishing import Place
from clinicrecords.review.services import queue_summary
from clinicrecords.tasks import prepared_request

DIGEST_HOUR = 7  # local time: the digest is sent at the first run from 07:00 on
KEEP_DAYS = 7     # the days' records outlive any time zone's "today"; older ones are pruned by the run


def waited(since, now):
    """How long a submission has waited, in words."""
    seconds = max(0, (now - since).total_seconds())
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'' if count == 1 else 's'}"
    return "less than a minute"


def local_day(now, timezone):
    """The clinic's local date at `now`, if its digest hour has come; else None."""
    local = now.astimezone(zoneinfo.ZoneInfo(timezone))
    return local.date() if local.hour >= DIGEST_HOUR else None


def _due(db, now):
    """(clinic id, name, local day) of the real clinics whose digest of today is due and not yet sent."""
    clinics = [(clinic.id, clinic.name, local_day(now, clinic.timezone)) for clinic in list_clinics(db)]
    days = {day for _, _, day in clinics if day is not None}
    done = {tuple(row) for row in db.execute(select(ReviewDigest.clinic_id, ReviewDigest.day)
                                             .where(ReviewDigest.day.in_(days)))} if days else set()
    return [(clinic_id, name, day) for clinic_id, name, day in clinics
            if day is not None and (clinic_id, day) not in done]


def send_digest(place, clinic_id, clinic_name, day, now):
    """The clinic's digest of `day`, unless it was sent: how many messages were queued (None: sent before)."""
    db = place.db
    claimed = db.scalar(insert(ReviewDigest).values(clinic_id=clinic_id, day=day, waiting=0)
                        .on_conflict_do_nothing().returning(ReviewDigest.clinic_id))
    if claimed is None:
        return None
    if open_clinic(db, clinic_id) is None:
        return 0
    summary = queue_summary(db)
    db.execute(update(ReviewDigest).where(ReviewDigest.clinic_id == clinic_id, ReviewDigest.day == day)
               .values(waiting=summary.waiting))
    if summary.waiting == 0:
        return 0
    return notify(place, kinds.REVIEW_DIGEST, clinic_staff_in_role(db, clinic_id, CLINICIAN), "review_digest",
                  clinic_regarding(clinic_name), f"/clinics/{clinic_id}/queue", clinic=clinic_name,
                  waiting=summary.waiting, oldest_waited=waited(summary.oldest_submitted_at, now))


def send_review_digests_now(registry=None, now=None):
    """{clinic id (text): messages queued} for the clinics whose digest this run sent, each in a transaction of
    its own."""
    now = now or clock.now()
    with prepared_request(registry) as request, request.tm:
        request.db.execute(delete(ReviewDigest).where(
            ReviewDigest.day < (now - datetime.timedelta(days=KEEP_DAYS)).date()))
        due = _due(request.db, now)
    sent = {}
    for clinic_id, name, day in due:
        with prepared_request(registry) as request, request.tm:
            queued = send_digest(Place(request.registry, request.db, request.enqueue), clinic_id, name, day, now)
        if queued is not None:
            sent[str(clinic_id)] = queued
    return sent
