"""The mail outbox: a row written in the caller's transaction, claimed by one worker at a time, sent, and
recorded; retried with backoff; found again by the sweep when a queue or a worker lost it.

At least once: a message stays `pending` until a send succeeded. A worker holds a message with a short claim
(`locked_until`), not an open transaction, so no database connection waits on a slow mail server and a killed
worker's claim simply runs out. Each claim counts as an attempt, so a message that keeps killing its worker is
given up too. After the n-th failed attempt the next waits `tasks.backoff_seconds(n, retry_base, retry_cap)`
(about 30 s, 1 min, 2 min, ... capped at 1 h); after `max_attempts`, or at once when the server refused the
message for good (5xx), it is `failed` and logged.

Every attempt is one line of the log, naming the message and its template, never its address: sent (INFO:
the SMTP server, or the file written in development), not sent with its next attempt (WARNING: a stopped
server is seen at once), or given up (ERROR).
"""

import datetime
import logging
import uuid
from dataclasses import dataclass

from sqlalchemy import delete, or_, select, update

from clinicrecords import clock, tasks
from clinicrecords.mail.models import OutgoingMail
from clinicrecords.mail.transports import Outgoing, SendFailed

log = logging.getLogger(__name__)


def _seconds(value):
    return datetime.timedelta(seconds=value)


def add(db, template, composed):
    """The row, in the caller's transaction; its task is expected at once (queued after the commit)."""
    now = clock.now()
    row = OutgoingMail(id=uuid.uuid4(), message_id=composed.message_id, template=template, sender=composed.sender,
                       recipient=composed.recipient, subject=composed.subject, content=composed.content,
                       status="pending", attempts=0, next_attempt_at=now, queued_for=now)
    db.add(row)
    db.flush()
    return row


@dataclass(frozen=True)
class Outcome:
    status: str                 # sent, retry, failed, skipped
    retry_in: float | None = None
    error: str | None = None
    attempt: int | None = None  # which attempt this was


def claim(db, settings, mail_id, now):
    """The message to send, if it is due, not held by another worker and has attempts left; else None."""
    found = db.execute(
        update(OutgoingMail)
        .where(OutgoingMail.id == mail_id, OutgoingMail.status == "pending", OutgoingMail.next_attempt_at <= now,
               OutgoingMail.attempts < settings.max_attempts,
               or_(OutgoingMail.locked_until.is_(None), OutgoingMail.locked_until < now))
        .values(locked_until=now + _seconds(settings.claim_seconds), queued_for=None,
                attempts=OutgoingMail.attempts + 1, last_attempt_at=now)
        .returning(OutgoingMail.id, OutgoingMail.sender, OutgoingMail.recipient, OutgoingMail.subject,
                   OutgoingMail.content, OutgoingMail.template)
    ).one_or_none()
    if found is None:
        return None
    return Outgoing(str(found.id), found.sender, found.recipient, found.subject, found.content, found.template)


def record(db, settings, mail_id, failure, now):
    """What the attempt came to: sent, a retry at its time, or given up."""
    row = db.get(OutgoingMail, mail_id, with_for_update=True)
    if row.status != "pending":  # another worker, after this one's claim ran out, got there first
        return Outcome(row.status)
    row.locked_until = None
    if failure is None:
        row.status, row.sent_at, row.content, row.last_error = "sent", now, None, None
        return Outcome("sent")
    row.last_error = failure.error
    if failure.permanent or row.attempts >= settings.max_attempts:
        _give_up(row, f"after {row.attempts} attempt(s): {failure.error}")
        return Outcome("failed", error=failure.error)
    retry_in = tasks.backoff_seconds(row.attempts, settings.retry_base_seconds, settings.retry_cap_seconds)
    row.next_attempt_at = row.queued_for = now + _seconds(retry_in)
    return Outcome("retry", retry_in, error=failure.error, attempt=row.attempts)


def _give_up(row, why):
    row.status, row.content = "failed", None
    log.error("mail %s (%s) given up %s", row.id, row.template, why)


def attempt(session_factory, settings, transport, mail_id):
    """One attempt of one message, in two short transactions of its own and none held while it is sent."""
    with session_factory.begin() as db:
        outgoing = claim(db, settings, mail_id, clock.now())
    if outgoing is None:
        return Outcome("skipped")
    try:
        went, failure = transport.send(outgoing), None
    except SendFailed as exc:
        went, failure = None, exc
    with session_factory.begin() as db:
        outcome = record(db, settings, mail_id, failure, clock.now())
    _log_attempt(outgoing, outcome, went, transport, settings)
    return outcome


def _log_attempt(outgoing, outcome, went, transport, settings):
    """The attempt's one line (a message given up was logged by `_give_up`)."""
    if outcome.status == "sent" and went:
        log.info("mail %s (%s) %s", outgoing.id, outgoing.template, went)
    elif outcome.status == "retry":
        log.warning("mail %s (%s) not sent to %s, attempt %d of %d: %s; next attempt in %d s", outgoing.id,
                    outgoing.template, transport.destination, outcome.attempt, settings.max_attempts, outcome.error,
                    round(outcome.retry_in))


def sweep(db, settings, now=None, limit=1000):
    """Messages that are due, not held and not expected by a queued task: marked queued, their ids returned for
    the caller to queue after its commit. Those whose attempts ran out while a worker held them are given up."""
    now = now or clock.now()
    free = or_(OutgoingMail.locked_until.is_(None), OutgoingMail.locked_until < now)
    for row in db.scalars(select(OutgoingMail)
                          .where(OutgoingMail.status == "pending", OutgoingMail.attempts >= settings.max_attempts,
                                 free)
                          .with_for_update(skip_locked=True)):
        _give_up(row, f"after {row.attempts} attempt(s), the last one never finished")
    grace = now - _seconds(settings.sweep_grace_seconds)
    due = (select(OutgoingMail.id)
           .where(OutgoingMail.status == "pending", OutgoingMail.next_attempt_at <= now, free,
                  or_(OutgoingMail.queued_for.is_(None), OutgoingMail.queued_for < grace))
           .order_by(OutgoingMail.next_attempt_at)
           .limit(limit)
           .with_for_update(skip_locked=True))
    ids = list(db.scalars(due))
    if ids:
        db.execute(update(OutgoingMail).where(OutgoingMail.id.in_(ids)).values(queued_for=now))
    return ids


def prune(db, older_than):
    """Sent and failed messages (their content already erased) older than the retention."""
    return db.execute(delete(OutgoingMail).where(OutgoingMail.status != "pending",
                                                 OutgoingMail.created_at < older_than)).rowcount
