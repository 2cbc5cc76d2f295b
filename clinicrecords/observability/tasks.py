"""The worker's periodic read of the last successful backup, from `pgbackrest info --output=json` (Debian has
no pgBackRest exporter); and one line plus a count per task that fails."""

import json
import logging
import subprocess

from huey import crontab, signals

from clinicrecords.observability.metrics import BACKUP_LAST_SUCCESS, BACKUP_READ_FAILURES, TASK_FAILURES
from clinicrecords.settings import app_settings
from clinicrecords.tasks import huey, periodic_task

log = logging.getLogger("clinicrecords.tasks")
INFO_TIMEOUT_SECONDS = 60


def last_successful_backup(info):
    """The stop time (Unix seconds) of the newest backup without an error in `pgbackrest info`'s JSON, or None."""
    stops = [backup["timestamp"]["stop"] for stanza in info for backup in stanza.get("backup", ())
             if not backup.get("error") and backup.get("timestamp", {}).get("stop")]
    return max(stops) if stops else None


def read_backup_info(stanza, run=subprocess.run):
    done = run(["pgbackrest", f"--stanza={stanza}", "info", "--output=json"], capture_output=True, text=True,
               timeout=INFO_TIMEOUT_SECONDS, check=True)
    return json.loads(done.stdout)


def report_backup(stanza, run=subprocess.run):
    try:
        stop = last_successful_backup(read_backup_info(stanza, run))
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError) as exc:
        BACKUP_READ_FAILURES.inc()
        log.warning("pgbackrest info failed: %s", type(exc).__name__)
        return None
    if stop is not None:
        BACKUP_LAST_SUCCESS.set(stop)
    return stop


@periodic_task(crontab(minute="*/5"))
def read_last_backup(request):
    stanza = app_settings(request.registry).metrics.backup_stanza
    if stanza:
        report_backup(stanza)


def task_name(task):
    """The task's dotted name as its queue knows it (`clinicrecords.mail.tasks.send_message`)."""
    return f"{type(task).__module__}.{task.name}"


def task_failed(signal, task, exc=None):
    name = task_name(task)
    TASK_FAILURES.labels(name).inc()
    # The exception's type only: its message may carry a value of the record the task worked on.
    log.error("task failed", extra={"task": name, "task_id": task.id,
                                    "error": type(exc).__name__ if exc is not None else None})


huey.signal(signals.SIGNAL_ERROR)(task_failed)
