"""Background upkeep of the portal: ended and expired sessions, log-in failures past the throttle's window,
one-time reads nobody read in time, expired emailed account links and mail requests past their throttle's
window, and sign-ins left at their second step, are removed (they decide nothing any more)."""

from huey import crontab

from clinicrecords import clock
from clinicrecords.identity.services import prune_pending_sign_ins, prune_recovery, prune_sessions
from clinicrecords.portal.web.once import prune as prune_one_time_reads
from clinicrecords.settings import app_settings
from clinicrecords.tasks import periodic_task


def prune(db, settings, now=None):
    """`settings`: the `portal.*` settings (a PortalSettings)."""
    now = now or clock.now()
    return {**prune_sessions(db, settings, now), "one_time_reads": prune_one_time_reads(db, now),
            **prune_recovery(db, now), **prune_pending_sign_ins(db, now)}


@periodic_task(crontab(minute="7"))
def prune_portal_sessions(request):
    return prune(request.db, app_settings(request.registry).portal)
