"""The worker checks due domains once a minute, each check in a transaction of its own.

Two workers may run this at once: a check locks its workspace's row with SKIP LOCKED and re-reads that it is
still due, so each due check is made once and nobody waits on a slow DNS answer.
"""

from huey import crontab

from clinicrecords.onboarding.interfaces import IDomainVerification
from clinicrecords.tasks import periodic_job, prepared_request

BATCH = 50  # per minute and worker; more due checks wait for the next minute


def check_due_domains_now(registry=None, now=None):
    """The workspace ids checked (as text)."""
    with prepared_request(registry) as request, request.tm:
        due = request.find_service(IDomainVerification).due_workspace_ids(now, BATCH)
    checked = []
    for workspace_id in due:
        with prepared_request(registry) as request, request.tm:
            if request.find_service(IDomainVerification).check_if_due(workspace_id, now) is not None:
                checked.append(str(workspace_id))
    return checked


@periodic_job(crontab(minute="*"))
def check_due_domains():
    return check_due_domains_now()
