"""Server-side sessions in PostgreSQL (the portal's cookie carries their token: `portal/web/sessions.py`).

A session ends when it has been idle longer than `portal.session_idle_minutes` (default 30), or
`portal.staff_session_idle_minutes` (default 15) for an account on a clinic's staff (staff can see patient
data), or has lived longer than `portal.session_absolute_hours` (default 12), whichever comes first; signing in
always starts a new session with a new token (no fixation), signing out ends it on the server. A person sees
their active sessions (browser, address, signed in, last seen) and ends any other or all others.
"""

import datetime
from dataclasses import dataclass, field

from sqlalchemy import case, delete, exists, or_, select, update
from zope.interface import implementer

from clinicrecords import clock
from clinicrecords.identity.interfaces import ISessionService
from clinicrecords.identity.models import Account, ClinicStaff, KnownDevice, LoginFailure, SecondStepFailure, Session
from clinicrecords.identity.throttle import CodeRules
from clinicrecords.identity.tokens import new_token, token_hash
from clinicrecords.identity.user_agents import describe, stored_user_agent
from clinicrecords.settings import PortalSettings

# last_seen_at is written at most this often per session: a page view is not a write.
TOUCH_EVERY = datetime.timedelta(minutes=1)
# Kept a day past any setting's limit, so that a session or failure is never removed while it still counts.
KEEP = datetime.timedelta(days=1)
# A device not signed in from for this long is forgotten (its cookie lives as long: `portal/web/devices.py`).
DEVICE_LIFETIME = datetime.timedelta(days=365)

# The application's SessionRules, kept in the registry by the identity context; tests replace it to move the
# sessions' clock (`dataclasses.replace(rules, clock=...)`).
SESSION_RULES = "identity.session_rules"


@dataclass(frozen=True)
class SessionRules:
    """How long sessions live, and the clock every session time is read from."""

    idle: datetime.timedelta = datetime.timedelta(minutes=PortalSettings.session_idle_minutes)
    staff_idle: datetime.timedelta = datetime.timedelta(minutes=PortalSettings.staff_session_idle_minutes)
    absolute: datetime.timedelta = datetime.timedelta(hours=PortalSettings.session_absolute_hours)
    clock: object = field(default=clock.now, compare=False)

    @classmethod
    def from_settings(cls, settings):
        """From the `portal.*` settings (a PortalSettings)."""
        return cls(datetime.timedelta(minutes=settings.session_idle_minutes),
                   datetime.timedelta(minutes=settings.staff_session_idle_minutes),
                   datetime.timedelta(hours=settings.session_absolute_hours))


@dataclass(frozen=True)
class ActiveSession:
    """Who is signed in: an account, through one server-side session (`reauthenticated_at`: when its person
    last proved it was them, `identity.reauth`)."""

    account_id: object
    email: str
    session_id: object
    csrf_token: str
    reauthenticated_at: datetime.datetime | None = None


@dataclass(frozen=True)
class IdleEnd:
    """A session that ended because it was idle too long: whether its account is on a clinic's staff (the
    shorter limit) and the limit, in minutes."""

    staff: bool
    minutes: int


@dataclass(frozen=True)
class SessionSummary:
    """One active session as its person sees it on the sessions page."""

    session_id: object
    browser: object  # a `user_agents.Browser`
    address: str | None
    signed_in_at: datetime.datetime
    last_seen_at: datetime.datetime


def _sees_patient_data():
    """The session's account is on a clinic's staff: its review queue or access report show patient data."""
    return exists().where(ClinicStaff.account_id == Session.account_id)


@implementer(ISessionService)
class SessionService:
    def __init__(self, db, rules=SessionRules()):
        self.db = db
        self.rules = rules

    def _alive(self, now):
        rules = self.rules
        return (Session.ended_at.is_(None), Session.created_at > now - rules.absolute,
                Session.last_seen_at > case((_sees_patient_data(), now - rules.staff_idle), else_=now - rules.idle))

    def start(self, account_id, user_agent=None, address=None):
        token, now = new_token(), self.rules.clock()
        # Signing in is proving who one is: the re-authentication window opens with the session.
        session = Session(token_hash=token_hash(token), account_id=account_id, csrf_token=new_token(),
                          created_at=now, last_seen_at=now, reauthenticated_at=now,
                          user_agent=stored_user_agent(user_agent), address=address or None)
        self.db.add(session)
        self.db.flush()
        email = self.db.scalar(select(Account.email).where(Account.id == account_id))
        return token, ActiveSession(account_id, email, session.id, session.csrf_token, now)

    def resume(self, token, address=None):
        now = self.rules.clock()
        row = self.db.execute(
            select(Session, Account.email).join(Account, Account.id == Session.account_id)
            .where(Session.token_hash == token_hash(token), *self._alive(now))
        ).first()
        if row is None:
            return None
        session = row.Session
        if now - session.last_seen_at >= TOUCH_EVERY:
            session.last_seen_at = now
            session.address = address or session.address
        return ActiveSession(session.account_id, row.email, session.id, session.csrf_token,
                             session.reauthenticated_at)

    def idle_end(self, token):
        now, rules = self.rules.clock(), self.rules
        row = self.db.execute(
            select(Session.created_at, Session.last_seen_at, _sees_patient_data().label("staff"))
            .where(Session.token_hash == token_hash(token), Session.ended_at.is_(None))
        ).first()
        if row is None or row.created_at <= now - rules.absolute:
            return None
        limit = rules.staff_idle if row.staff else rules.idle
        if row.last_seen_at > now - limit:
            return None
        return IdleEnd(bool(row.staff), int(limit.total_seconds() // 60))

    def end(self, token):
        self.db.execute(update(Session).where(Session.token_hash == token_hash(token),
                                              Session.ended_at.is_(None)).values(ended_at=self.rules.clock()))

    def end_all_but(self, account_id, session_id):
        """After a password change: every other browser signed in as this account is signed out."""
        return self.db.execute(update(Session).where(
            Session.account_id == account_id, Session.id != session_id,
            Session.ended_at.is_(None)).values(ended_at=self.rules.clock())).rowcount

    def active(self, account_id):
        now = self.rules.clock()
        sessions = self.db.scalars(select(Session).where(Session.account_id == account_id, *self._alive(now))
                                   .order_by(Session.last_seen_at.desc(), Session.created_at.desc()))
        return [SessionSummary(session.id, describe(session.user_agent), session.address, session.created_at,
                               session.last_seen_at) for session in sessions]

    def end_session(self, account_id, session_id):
        now = self.rules.clock()
        return self.db.execute(update(Session).where(
            Session.id == session_id, Session.account_id == account_id, *self._alive(now))
            .values(ended_at=now)).rowcount == 1


def prune_sessions(db, settings, now=None):
    """Removes ended and expired sessions, log-in failures and wrong codes past the throttles' windows (they
    decide nothing any more) and devices not signed in from for a year: {"sessions": n, "login_failures": n,
    "second_step_failures": n, "known_devices": n}. `settings`: the `portal.*` settings (a PortalSettings)."""
    now = now or clock.now()
    absolute = datetime.timedelta(hours=settings.session_absolute_hours)
    throttle = datetime.timedelta(minutes=settings.login_throttle_minutes)
    sessions = db.execute(delete(Session).where(or_(
        Session.ended_at < now - KEEP, Session.created_at < now - absolute - KEEP))).rowcount
    failures = db.execute(delete(LoginFailure).where(LoginFailure.at < now - throttle - KEEP)).rowcount
    codes = db.execute(delete(SecondStepFailure).where(
        SecondStepFailure.at < now - CodeRules.account_window - KEEP)).rowcount
    devices = db.execute(delete(KnownDevice).where(KnownDevice.last_seen_at < now - DEVICE_LIFETIME)).rowcount
    return {"sessions": sessions, "login_failures": failures, "second_step_failures": codes, "known_devices": devices}


def session_service_factory(context, request):
    return SessionService(request.db, request.registry[SESSION_RULES])
