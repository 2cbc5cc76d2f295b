"""Background upkeep of the portal: ended and expired sessions, log-in failures past the throttle's window, and
one-time reads nobody read in time, are removed (they decide nothing any more)."""

import datetime

from huey import crontab
from sqlalchemy import delete, or_

from clinicrecords import clock
from clinicrecords.portal.accounts.models import LoginFailure
from clinicrecords.portal.web.models import PortalSession
from clinicrecords.portal.web.once import prune as prune_one_time_reads
from clinicrecords.settings import app_settings
from clinicrecords.tasks import periodic_task

# Kept a day past any setting's limit, so that a session or failure is never removed while it still counts.
KEEP = datetime.timedelta(days=1)


def prune(db, settings, now=None):
    """`settings`: the `portal.*` settings (a PortalSettings)."""
    now = now or clock.now()
    absolute = datetime.timedelta(hours=settings.session_absolute_hours)
    throttle = datetime.timedelta(minutes=settings.login_throttle_minutes)
    sessions = db.execute(delete(PortalSession).where(or_(
        PortalSession.ended_at < now - KEEP, PortalSession.created_at < now - absolute - KEEP))).rowcount
    failures = db.execute(delete(LoginFailure).where(LoginFailure.at < now - throttle - KEEP)).rowcount
    return {"sessions": sessions, "login_failures": failures, "one_time_reads": prune_one_time_reads(db, now)}


@periodic_task(crontab(minute="7"))
def prune_portal_sessions(request):
    return prune(request.db, app_settings(request.registry).portal)
