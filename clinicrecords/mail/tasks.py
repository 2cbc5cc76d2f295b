"""Huey tasks: send one message, sweep for messages a lost queue or a killed worker left behind, prune old
rows. `queue_sends` is what a committed transaction calls to queue its messages."""

import datetime
import logging
import uuid

from huey import crontab

from clinicrecords import clock
from clinicrecords.db import SESSION_FACTORY
from clinicrecords.mail import outbox
from clinicrecords.mail.settings import mail_settings
from clinicrecords.mail.transports import transport_for
from clinicrecords.tasks import periodic_task, task

log = logging.getLogger(__name__)


@task()
def send_mail(request, mail_id):
    settings = mail_settings(request.registry)
    outcome = outbox.attempt(request.registry[SESSION_FACTORY], settings, transport_for(settings),
                             uuid.UUID(mail_id))
    if outcome.status == "retry":
        try:
            send_mail.schedule(args=(mail_id,), delay=outcome.retry_in)
        except Exception:  # the row says when it is due: the sweep queues it if this is lost
            log.exception("could not schedule the retry of mail %s; the sweep will", mail_id)
    return outcome.status


def queue_sends(mail_ids):
    """After the commit that wrote them: a queue that is down must not fail a committed change (the sweep
    queues what this could not)."""
    for mail_id in mail_ids:
        try:
            send_mail(str(mail_id))
        except Exception:
            log.exception("could not queue mail %s; the sweep will", mail_id)


@periodic_task(crontab(minute="*"))
def sweep_mail(request):
    ids = outbox.sweep(request.db, mail_settings(request.registry))
    if ids:
        request.enqueue(queue_sends, ids)
    return len(ids)


@periodic_task(crontab(minute="47"))
def prune_mail(request):
    keep = datetime.timedelta(days=mail_settings(request.registry).keep_days)
    return outbox.prune(request.db, clock.now() - keep)
