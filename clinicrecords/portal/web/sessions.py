"""Server-side sessions in PostgreSQL and the cookie that carries their token.

A session ends when it has been idle longer than `portal.session_idle_minutes` (default 30) or has lived
longer than `portal.session_absolute_hours` (default 12), whichever comes first; signing in always starts a
new session with a new token (no fixation), signing out ends it on the server.
"""

import datetime

from sqlalchemy import select, update
from zope.interface import implementer

from clinicrecords.clock import now
from clinicrecords.portal.accounts.models import Account
from clinicrecords.portal.web.interfaces import ISessionService
from clinicrecords.portal.web.models import PortalSession
from clinicrecords.portal.web.security import MemberIdentity
from clinicrecords.portal.web.tokens import new_token, token_hash

# last_seen_at is written at most this often per session: a page view is not a write.
TOUCH_EVERY = datetime.timedelta(minutes=1)


@implementer(ISessionService)
class SessionService:
    def __init__(self, db, idle, absolute, clock=now):
        self.db = db
        self.idle = idle
        self.absolute = absolute
        self.clock = clock

    def start(self, account_id):
        token = new_token()
        session = PortalSession(token_hash=token_hash(token), account_id=account_id,
                                csrf_token=new_token(), created_at=self.clock(),
                                last_seen_at=self.clock())
        self.db.add(session)
        self.db.flush()
        email = self.db.scalar(select(Account.email).where(Account.id == account_id))
        return token, MemberIdentity(account_id, email, session.id, session.csrf_token)

    def resume(self, token):
        now = self.clock()
        row = self.db.execute(
            select(PortalSession, Account.email).join(Account, Account.id == PortalSession.account_id)
            .where(PortalSession.token_hash == token_hash(token), PortalSession.ended_at.is_(None),
                   PortalSession.last_seen_at > now - self.idle, PortalSession.created_at > now - self.absolute)
        ).first()
        if row is None:
            return None
        session = row.PortalSession
        if now - session.last_seen_at >= TOUCH_EVERY:
            session.last_seen_at = now
        return MemberIdentity(session.account_id, row.email, session.id, session.csrf_token)

    def end(self, token):
        self.db.execute(update(PortalSession).where(PortalSession.token_hash == token_hash(token),
                                                    PortalSession.ended_at.is_(None)).values(ended_at=self.clock()))

    def end_all_but(self, account_id, session_id):
        """After a password change: every other browser signed in as this account is signed out."""
        self.db.execute(update(PortalSession).where(
            PortalSession.account_id == account_id, PortalSession.id != session_id,
            PortalSession.ended_at.is_(None)).values(ended_at=self.clock()))


def session_service_factory(settings):
    """`settings`: the `portal.*` settings (a PortalSettings)."""
    idle = datetime.timedelta(minutes=settings.session_idle_minutes)
    absolute = datetime.timedelta(hours=settings.session_absolute_hours)

    def factory(context, request):
        return SessionService(request.db, idle, absolute)

    return factory


class SessionCookie:
    """HttpOnly, SameSite=Lax, and Secure (with the `__Host-` prefix) unless `portal.secure_cookies` is off,
    which only development and the tests do (they run over plain http on loopback). `settings`: the `portal.*`
    settings (a PortalSettings)."""

    def __init__(self, settings, path):
        self.secure = settings.secure_cookies
        self.name = "__Host-portal_session" if self.secure else "portal_session"
        # __Host- cookies must have Path=/; without the prefix the cookie stays on the portal's own paths.
        self.path = "/" if self.secure or not path else path
        self.absolute_seconds = settings.session_absolute_hours * 3600

    def read(self, request):
        return request.cookies.get(self.name)

    def _header(self, value, max_age):
        parts = [f"{self.name}={value}", f"Path={self.path}", f"Max-Age={max_age}", "HttpOnly", "SameSite=Lax"]
        if self.secure:
            parts.append("Secure")
        return [("Set-Cookie", "; ".join(parts))]

    def set_headers(self, request, token):
        return self._header(token, self.absolute_seconds)

    def clear_headers(self, request):
        return self._header("", 0)
