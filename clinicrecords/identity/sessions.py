"""Server-side sessions in PostgreSQL (the portal's cookie carries their token: `portal/web/sessions.py`).

A session ends when it has been idle longer than `portal.session_idle_minutes` (default 30) or has lived
longer than `portal.session_absolute_hours` (default 12), whichever comes first; signing in always starts a
new session with a new token (no fixation), signing out ends it on the server.
"""

import datetime
from dataclasses import dataclass

from sqlalchemy import delete, or_, select, update
from zope.interface import implementer

from clinicrecords import clock
from clinicrecords.identity.interfaces import ISessionService
from clinicrecords.identity.models import Account, LoginFailure, Session
from clinicrecords.identity.tokens import new_token, token_hash

# last_seen_at is written at most this often per session: a page view is not a write.
TOUCH_EVERY = datetime.timedelta(minutes=1)
# Kept a day past any setting's limit, so that a session or failure is never removed while it still counts.
KEEP = datetime.timedelta(days=1)


@dataclass(frozen=True)
class ActiveSession:
    """Who is signed in: an account, through one server-side session."""

    account_id: object
    email: str
    session_id: object
    csrf_token: str


@implementer(ISessionService)
class SessionService:
    def __init__(self, db, idle, absolute, clock=clock.now):
        self.db = db
        self.idle = idle
        self.absolute = absolute
        self.clock = clock

    def start(self, account_id):
        token = new_token()
        session = Session(token_hash=token_hash(token), account_id=account_id, csrf_token=new_token(),
                          created_at=self.clock(), last_seen_at=self.clock())
        self.db.add(session)
        self.db.flush()
        email = self.db.scalar(select(Account.email).where(Account.id == account_id))
        return token, ActiveSession(account_id, email, session.id, session.csrf_token)

    def resume(self, token):
        now = self.clock()
        row = self.db.execute(
            select(Session, Account.email).join(Account, Account.id == Session.account_id)
            .where(Session.token_hash == token_hash(token), Session.ended_at.is_(None),
                   Session.last_seen_at > now - self.idle, Session.created_at > now - self.absolute)
        ).first()
        if row is None:
            return None
        session = row.Session
        if now - session.last_seen_at >= TOUCH_EVERY:
            session.last_seen_at = now
        return ActiveSession(session.account_id, row.email, session.id, session.csrf_token)

    def end(self, token):
        self.db.execute(update(Session).where(Session.token_hash == token_hash(token),
                                              Session.ended_at.is_(None)).values(ended_at=self.clock()))

    def end_all_but(self, account_id, session_id):
        """After a password change: every other browser signed in as this account is signed out."""
        self.db.execute(update(Session).where(
            Session.account_id == account_id, Session.id != session_id,
            Session.ended_at.is_(None)).values(ended_at=self.clock()))


def prune_sessions(db, settings, now=None):
    """Removes ended and expired sessions and log-in failures past the throttle's window (they decide nothing
    any more): {"sessions": n, "login_failures": n}. `settings`: the `portal.*` settings (a PortalSettings)."""
    now = now or clock.now()
    absolute = datetime.timedelta(hours=settings.session_absolute_hours)
    throttle = datetime.timedelta(minutes=settings.login_throttle_minutes)
    sessions = db.execute(delete(Session).where(or_(
        Session.ended_at < now - KEEP, Session.created_at < now - absolute - KEEP))).rowcount
    failures = db.execute(delete(LoginFailure).where(LoginFailure.at < now - throttle - KEEP)).rowcount
    return {"sessions": sessions, "login_failures": failures}


def session_service_factory(settings):
    """`settings`: the `portal.*` settings (a PortalSettings)."""
    idle = datetime.timedelta(minutes=settings.session_idle_minutes)
    absolute = datetime.timedelta(hours=settings.session_absolute_hours)

    def factory(context, request):
        return SessionService(request.db, idle, absolute)

    return factory
