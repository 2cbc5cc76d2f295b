"""A real Huey consumer process killed while it sends a message: nothing is lost. A second consumer takes over
once the dead one's claim has run out and the sweep has queued the message again."""

import signal
import time

from sqlalchemy import delete

from clinicrecords import tasks
from clinicrecords.mail.models import OutgoingMail
from clinicrecords.mail.tasks import sweep_mail
from tests.common.consumer import consumer_config, start_consumer, stop_consumer, wait_for
from tests.common.mail import SmtpServer
from tests.mail.support import rows, send


def _row(engine, queued):
    [row] = [row for row in rows(engine) if str(row.id) == queued.id]
    return row


def _queued(queued):
    return sum(1 for task in tasks.huey.pending() if task.name == "send_mail" and task.args == (queued.id,))


def test_a_worker_killed_before_sending_loses_nothing(registry, engine, queue_on_disk):
    with SmtpServer() as server:
        # A consumer sweeps once as it starts: the grace keeps that sweep from queueing the message a second time
        # while its first task waits (a slow start took longer than a short grace). The message the killed
        # consumer held has no task expected of it, so the sweep below queues it whatever the grace.
        ini, env = consumer_config(queue_on_disk, engine, extra={"mail.claim_seconds": "2",
                                                                  "mail.sweep_grace_seconds": "60"})
        env["CLINICRECORDS_SMTP_URL"] = server.url
        held = server.inbox.hold_until_released()
        queued = send(registry, to="kept@example.org", regarding="the clinic Northside")
        assert _queued(queued) == 1 and _row(engine, queued).status == "pending"

        first = start_consumer(ini, env)
        try:
            assert server.inbox.arrived.wait(45), "the first consumer began to send"
        finally:
            stop_consumer(first, signal.SIGKILL)
        held.set()
        killed = _row(engine, queued)
        assert (killed.status, killed.attempts) == ("pending", 1) and killed.locked_until is not None
        assert _queued(queued) == 0, "the consumer had taken the task: only the database remembers"
        assert server.inbox.messages() == []

        second = start_consumer(ini, env)
        try:
            time.sleep(2.5)  # the dead consumer's claim (mail.claim_seconds = 2) runs out
            sweep_mail()  # the periodic sweep, queued for the consumer as the scheduler would
            assert wait_for(lambda: _row(engine, queued).status == "sent", 45)
        finally:
            stop_consumer(second)
        [message] = server.inbox.messages()
    assert message.to == ["kept@example.org"] and message.message["Message-ID"] == queued.message_id
    assert _row(engine, queued).attempts == 2
    with engine.begin() as connection:  # committed for real: leave the other tests an empty outbox
        connection.execute(delete(OutgoingMail).where(OutgoingMail.id == killed.id))
