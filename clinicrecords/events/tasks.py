"""Huey tasks: deliver one webhook, sweep for deliveries a lost queue or a killed worker left behind, and
prune events and deliveries past the retention."""

import logging
import uuid

from huey import crontab

from clinicrecords import clock
from clinicrecords.clinics.services import list_clinics
from clinicrecords.events import delivery, feed
from clinicrecords.events.outbox import deliver_with, queue_after_commit
from clinicrecords.events.settings import webhook_settings
from clinicrecords.tasks import periodic_task, task

log = logging.getLogger(__name__)


@task()
def deliver(request, delivery_id):
    outcome = delivery.attempt(request.registry, uuid.UUID(delivery_id))
    if outcome.status in ("retry", "deferred"):
        try:
            deliver.schedule(args=(delivery_id,), delay=outcome.retry_in)
        except Exception:  # the row says when it is due: the sweep queues it if this is lost
            log.exception("could not schedule the retry of webhook delivery %s", delivery_id)
    return outcome.status


deliver_with(deliver)


@periodic_task(crontab(minute="*"))
def sweep_deliveries(request):
    ids = delivery.sweep(request.db, webhook_settings(request.registry))
    queue_after_commit(request.db, ids)
    return len(ids)


@periodic_task(crontab(minute="23"))
def prune_events(request):
    """Hourly: one task per clinic (each its own transaction), and old deliveries."""
    for clinic in list_clinics(request.db, include_sandboxes=True):
        request.enqueue(prune_clinic_events, str(clinic.id))
    delivery.prune_deliveries(request.db, clock.now() - feed.RETENTION)


@task()
def prune_clinic_events(request, clinic_id):
    return feed.prune(request.db, uuid.UUID(clinic_id))
