"""The hourly run of the daily review digest (digest.py): each clinic's goes out at its first run from 07:00
local time."""

from huey import crontab

from clinicrecords.notifications.digest import send_review_digests_now
from clinicrecords.tasks import periodic_job


@periodic_job(crontab(minute="5"))
def send_review_digests():
    return send_review_digests_now()
