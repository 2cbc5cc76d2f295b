"""Background upkeep of the portal: ended and expired sessions, log-in failures past the throttle's window, and
one-time reads nobody read in time, are removed (they decide nothing any more)."""

import datetime

from huey import crontab
from sqlalchemy import delete, or_

from clinicrecords import clock
from clinicrecords.portal.accounts.models import LoginFailure
from clinicrecords.portal.web.models import PortalSession
from clinicrecords.portal.web.once import prune as prune_one_time_reads
from clinicrecords.tasks import periodic_task

# Kept a day past any setting's limit, so that a session or failure is never removed while it still counts.
KEEP = datetime.timedelta(days=1)


def prune(db, settings, now=None):
    now = now or clock.now()
    absolute = datetime.timedelta(hours=int(settings.get("portal.session_absolute_hours", 12)))
    throttle = datetime.timedelta(minutes=int(settings.get("portal.login_throttle_minutes", 15)))
    sessions = db.execute(delete(PortalSession).where(or_(
        PortalSession.ended_at < now - KEEP, PortalSession.created_at < now - absolute - KEEP))).rowcount
    failures = db.execute(delete(LoginFailure).where(LoginFailure.at < now - throttle - KEEP)).rowcount
    return {"sessions": sessions, "login_failures": failures, "one_time_reads": prune_one_time_reads(db, now)}


@periodic_task(crontab(minute="7"))
def prune_portal_sessions(request):
    return prune(request.db, request.registry.settings)
