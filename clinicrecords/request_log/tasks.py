"""Background upkeep of the request log."""

from huey import crontab

from clinicrecords.db import ENGINE
from clinicrecords.request_log.services import prune
from clinicrecords.tasks import periodic_task


@periodic_task(crontab(minute="7"))
def prune_request_log(request):
    """Rows past the 7 days are already never shown; this removes them, in batches."""
    return prune(request.registry[ENGINE])
