"""Domain verification: claiming a domain, checking its TXT record, and what the checks decide."""

import dataclasses
import datetime
import math
import uuid

import idna
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from zope.interface import implementer

from clinicrecords import clock
from clinicrecords.access import services as access
from clinicrecords.errors import InvalidInput
from clinicrecords.onboarding import schedule
from clinicrecords.onboarding.dns_lookup import TXT_LOOKUP
from clinicrecords.onboarding.domains import new_txt_value, normalize_domain, txt_host
from clinicrecords.onboarding.errors import CheckRefused
from clinicrecords.onboarding.interfaces import IDomainVerification
from clinicrecords.onboarding.models import WorkspaceDomain
from clinicrecords.onboarding.published import DomainLapsed
from clinicrecords.onboarding.snapshots import snapshot_json
from clinicrecords.publishing import request_publisher

# How long past the lookup's timeout a claim stays its own (then its process is taken for dead).
CLAIM_MARGIN = datetime.timedelta(minutes=1)


@dataclasses.dataclass(frozen=True)
class DomainStatus:
    workspace_id: uuid.UUID
    domain: str  # ASCII (A-label) form
    domain_unicode: str
    txt_host: str
    txt_value: str
    state: str
    last_check_at: datetime.datetime | None
    last_result: str | None
    next_check_at: datetime.datetime | None  # None: paused until "Check now"
    absent_checks: int
    verified_at: datetime.datetime | None
    lapsed_at: datetime.datetime | None
    lapse_reason: str | None
    automatic_checks_until: datetime.datetime | None  # the pending schedule's end; None: verified, daily

    @classmethod
    def of(cls, row):
        until = None if row.state == schedule.VERIFIED else schedule.pending_checks_until(row.schedule_started_at)
        return cls(row.workspace_id, row.domain, idna.decode(row.domain), txt_host(row.domain), row.txt_value,
                   row.state, row.last_check_at, row.last_result, row.next_check_at, row.absent_checks,
                   row.verified_at, row.lapsed_at, row.lapse_reason, until)

    def as_json(self):
        return snapshot_json(self)


def _pending(domain, now):
    """Every column of a freshly claimed domain: a new value, and the schedule starting now."""
    return {"domain": domain, "txt_value": new_txt_value(), "state": schedule.PENDING,
            "schedule_started_at": now, "next_check_at": schedule.next_pending_check(now, now),
            "last_check_at": None, "last_result": None, "absent_checks": 0, "verified_at": None,
            "lapsed_at": None, "lapse_reason": None, "check_started_at": None}


@dataclasses.dataclass(frozen=True)
class ClaimedCheck:
    """A check that holds its workspace's claim: what to look up, and the claim it must still hold to record."""

    workspace_id: uuid.UUID
    domain: str
    txt_value: str
    started_at: datetime.datetime
    scheduled: bool


def _seconds(delta):
    return max(1, math.ceil(delta.total_seconds()))


@implementer(IDomainVerification)
class DomainVerificationService:
    """Needs the session, a `TxtLookup` and the transaction manager the session is joined to; drives the
    workspace's verified flag through access's service.

    A check never waits on DNS inside a transaction: it claims the workspace's row (`check_started_at`) and
    commits, so no connection or lock is held during the lookup and a second check of the same workspace is
    refused at once; then it records the result in a new transaction, if it still holds the claim and the
    domain is the one it looked up."""

    def __init__(self, db, lookup, transaction, publish):
        self.db = db
        self.lookup = lookup
        self.transaction = transaction
        self.publish = publish  # tells of a lapse (clinicrecords.publishing), in the transaction recording it
        # Past this a claim's process has surely died (the lookup gives up after its timeout).
        self.claim_expires = datetime.timedelta(seconds=lookup.timeout) + CLAIM_MARGIN

    def status(self, workspace_id):
        row = self.db.get(WorkspaceDomain, workspace_id)
        return DomainStatus.of(row) if row is not None else None

    def set_domain(self, workspace_id, domain, now=None):
        domain = normalize_domain(domain)
        access.get_workspace(self.db, workspace_id)
        fresh = _pending(domain, now or clock.now())
        row = self.db.get(WorkspaceDomain, workspace_id, with_for_update=True)
        if row is None:
            # Two first claims at once: one inserts, the other waits for it and goes on as a change.
            inserted = self.db.scalar(insert(WorkspaceDomain).values(workspace_id=workspace_id, **fresh)
                                      .on_conflict_do_nothing().returning(WorkspaceDomain.workspace_id))
            row = self.db.get(WorkspaceDomain, workspace_id, with_for_update=True)
            if inserted is not None:
                return DomainStatus.of(row)
        if row.domain == domain:
            return DomainStatus.of(row)
        if row.state == schedule.VERIFIED:
            # The verification proved control of the old domain, not of the one now claimed.
            access.set_workspace(self.db, workspace_id, verified=False)
        for name, value in fresh.items():
            setattr(row, name, value)
        self.db.flush()
        return DomainStatus.of(row)

    def check_now(self, workspace_id, now=None, min_interval=None):
        access.get_workspace(self.db, workspace_id)
        now = now or clock.now()
        row = self.db.get(WorkspaceDomain, workspace_id, with_for_update=True)
        if row is None:
            raise InvalidInput("the workspace has no domain to check: set one first")
        if self._running(row, now):
            raise CheckRefused("a check of this domain is running now: its result shows here when it ends",
                               row.check_started_at + datetime.timedelta(seconds=self.lookup.timeout) - now)
        if min_interval and row.last_check_at is not None and now - row.last_check_at < min_interval:
            wait = row.last_check_at + min_interval - now
            raise CheckRefused(f"the domain was checked moments ago: check again in {_seconds(wait)} seconds",
                               wait)
        return self._check(self._claim(row, now, scheduled=False))

    def due_workspace_ids(self, now=None, limit=50):
        return list(self.db.scalars(
            select(WorkspaceDomain.workspace_id).where(WorkspaceDomain.next_check_at <= (now or clock.now()))
            .order_by(WorkspaceDomain.next_check_at).limit(limit)))

    def check_if_due(self, workspace_id, now=None):
        now = now or clock.now()
        row = self.db.scalar(
            select(WorkspaceDomain).where(WorkspaceDomain.workspace_id == workspace_id,
                                          WorkspaceDomain.next_check_at <= now)
            .with_for_update(skip_locked=True))
        if row is None or self._running(row, now):
            return None
        return self._check(self._claim(row, now, scheduled=True))

    def _running(self, row, now):
        return row.check_started_at is not None and now - row.check_started_at < self.claim_expires

    def _claim(self, row, now, scheduled):
        row.check_started_at = now
        self.db.flush()
        return ClaimedCheck(row.workspace_id, row.domain, row.txt_value, now, scheduled)

    def _check(self, claim):
        # The claim commits (seen by every other check at once) and the session gives its connection back
        # before the lookup, which may wait for the whole DNS timeout.
        self.transaction.commit()
        self.transaction.begin()
        result = self.lookup.check(txt_host(claim.domain), claim.txt_value)
        return self._record(claim, result)

    def _record(self, claim, result):
        row = self.db.get(WorkspaceDomain, claim.workspace_id, with_for_update=True)
        if row is None or row.check_started_at != claim.started_at or row.txt_value != claim.txt_value:
            # The domain changed while the lookup ran (its claim went with it), or the claim expired and was
            # taken over: the result says nothing about the record now asked for.
            return DomainStatus.of(row) if row is not None else None
        now, scheduled = claim.started_at, claim.scheduled
        row.check_started_at = None
        was = row.state
        state, row.absent_checks = schedule.apply_result(was, row.absent_checks, result, scheduled)
        row.last_check_at, row.last_result, row.state = now, result, state
        if state != was:
            self._entered(row, state, now)
        if not scheduled and state != schedule.VERIFIED:
            row.schedule_started_at = now  # "Check now" restarts the schedule
        if scheduled or state != was or state != schedule.VERIFIED:
            row.next_check_at = schedule.next_check(state, row.schedule_started_at, now)
        self.db.flush()
        return DomainStatus.of(row)

    def _entered(self, row, state, now):
        if state == schedule.VERIFIED:
            row.verified_at, row.lapse_reason = now, None
            access.set_workspace(self.db, row.workspace_id, verified=True)
        elif state == schedule.LAPSED:
            row.lapsed_at, row.schedule_started_at = now, now
            row.lapse_reason = (f"The TXT record {txt_host(row.domain)} was not found at "
                                f"{row.absent_checks} daily checks in a row (last: {row.last_result}).")
            row.absent_checks = 0
            access.set_workspace(self.db, row.workspace_id, verified=False)
            self.publish(DomainLapsed(row.workspace_id, row.domain))


def domain_verification_factory(context, request):
    return DomainVerificationService(request.db, request.registry[TXT_LOOKUP], request.tm, request_publisher(request))
