"""Background upkeep of the API conventions."""

from huey import crontab

from clinicrecords.api.idempotency import prune
from clinicrecords.tasks import periodic_task


@periodic_task(crontab(minute="*/15"))
def prune_idempotency_records(request):
    """Answers older than the 24-hour retention are already ignored; this removes them."""
    return prune(request.db)
