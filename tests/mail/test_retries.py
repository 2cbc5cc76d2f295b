"""A mail server that refuses for now, one that is down, and a queue that is down: the message waits in the
outbox and is sent later, with backoff; one refused for good, or past its attempts, is given up and logged."""

import datetime
import logging

from sqlalchemy import update

from clinicrecords import tasks
from clinicrecords.mail.models import OutgoingMail
from clinicrecords.mail.tasks import prune_mail, sweep_mail
from clinicrecords.settings import read
from tests.mail.support import make_due, rows, send

GIVE_UP_LOG = "clinicrecords.mail.outbox"


def test_a_temporary_refusal_is_retried_with_backoff_until_accepted(app, registry, engine, mail):
    mail.refuse_next("451 4.3.0 Try again later", "421 4.7.0 Too busy")
    queued = send(registry, to="patient-facing@example.org")
    [row] = rows(engine)
    assert (row.status, row.attempts, row.last_error) == ("pending", 1, "message refused: 451")
    assert row.content is not None, "kept until sent: a retry sends the same bytes"
    waited = (row.next_attempt_at - row.last_attempt_at).total_seconds()
    assert 15 <= waited <= 30, "retry 1 waits uniform(0.5, 1) × 30 s"
    assert [task.name for task in tasks.huey.scheduled()].count("send_mail") >= 1, "its retry is scheduled"

    make_due(engine)
    sweep_mail()
    [row] = rows(engine)
    assert (row.status, row.attempts, row.last_error) == ("pending", 2, "message refused: 421")
    assert 30 <= (row.next_attempt_at - row.last_attempt_at).total_seconds() <= 60, "retry 2 waits twice as long"
    assert mail.messages() == []

    make_due(engine)
    sweep_mail()
    [message] = mail.wait_for(1)
    assert message.message["Message-ID"] == queued.message_id and mail.attempts == 3
    [row] = rows(engine)
    assert (row.status, row.attempts, row.last_error, row.content) == ("sent", 3, None, None)
    make_due(engine)
    sweep_mail()
    assert len(mail.messages()) == 1, "a sent message is not sent again"


def test_a_permanent_refusal_is_given_up_at_once_and_logged(app, registry, engine, mail, caplog):
    mail.refuse_next("550 5.1.1 No such mailbox")
    with caplog.at_level(logging.ERROR, logger=GIVE_UP_LOG):
        send(registry, to="nobody@example.org")
    [row] = rows(engine)
    assert (row.status, row.attempts, row.last_error, row.content) == ("failed", 1, "message refused: 550", None)
    [logged] = [r.getMessage() for r in caplog.records if r.name == GIVE_UP_LOG]
    assert logged == f"mail {row.id} (test) given up after 1 attempt(s): message refused: 550"
    assert "nobody@example.org" not in logged
    make_due(engine)
    sweep_mail()
    assert mail.messages() == [] and mail.attempts == 1


def test_after_its_last_attempt_a_message_is_given_up_and_logged(app, registry, engine, mail, caplog):
    attempts = registry["mail.settings"].max_attempts
    mail.refuse_next(*["452 4.2.2 Mailbox full"] * attempts)
    with caplog.at_level(logging.ERROR, logger=GIVE_UP_LOG):
        send(registry)
        for _ in range(attempts - 1):
            make_due(engine)
            sweep_mail()
    [row] = rows(engine)
    assert (row.status, row.attempts, row.content) == ("failed", attempts, None)
    assert [r.getMessage() for r in caplog.records if r.name == GIVE_UP_LOG] == [
        f"mail {row.id} (test) given up after {attempts} attempt(s): message refused: 452"]
    assert mail.attempts == attempts and mail.messages() == []


def test_a_mail_server_that_is_down_delays_the_message_and_loses_nothing(app, engine, mail, make_app, monkeypatch):
    monkeypatch.setenv("CLINICRECORDS_SMTP_URL", "smtp://127.0.0.1:9")  # nothing listens there
    down = make_app().registry
    queued = send(down, to="later@example.org")
    [row] = rows(engine)
    assert (row.status, row.attempts, row.last_error) == ("pending", 1, "ConnectionRefusedError")

    monkeypatch.undo()
    make_app()  # the server is back: the worker's configuration points at it again
    make_due(engine)
    sweep_mail()
    [message] = mail.wait_for(1)
    assert message.message["Message-ID"] == queued.message_id and rows(engine)[0].status == "sent"


def test_a_queue_that_is_down_fails_no_transaction_and_the_sweep_sends_the_message(app, registry, engine, mail,
                                                                                     settings, caplog):
    # Redis refusing connections: queueing the send after the commit fails.
    tasks.configure(read({**settings, "huey.backend": "redis", "huey.redis_url": "redis://127.0.0.1:9/0",
                          "huey.immediate": "false"}))
    try:
        with caplog.at_level(logging.ERROR, logger="clinicrecords.mail.tasks"):
            queued = send(registry, to="queued@example.org")
    finally:
        tasks.configure(read(settings))
    assert [r.getMessage() for r in caplog.records if r.name == "clinicrecords.mail.tasks"] == [
        f"could not queue mail {queued.id}; the sweep will"]
    [row] = rows(engine)
    assert (row.status, row.attempts) == ("pending", 0), "committed, waiting for the sweep"
    assert mail.messages() == []
    sweep_mail()
    assert mail.messages() == [], "the sweep leaves a message its task may still be about to send (grace)"
    make_due(engine)
    sweep_mail()
    [message] = mail.wait_for(1)
    assert message.message["Message-ID"] == queued.message_id


def test_a_message_whose_attempts_all_died_with_their_worker_is_given_up(app, registry, engine, mail, caplog):
    mail.refuse_next("451 4.3.0 Try again later")
    send(registry)
    attempts = registry["mail.settings"].max_attempts
    past = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)
    make_due(engine, attempts=attempts, locked_until=past)  # the last claim ran out: its worker was killed
    with caplog.at_level(logging.ERROR, logger=GIVE_UP_LOG):
        sweep_mail()
    [row] = rows(engine)
    assert (row.status, row.content) == ("failed", None) and mail.attempts == 1
    # (the first attempt's refusal was logged before, as a warning)
    assert [r.getMessage() for r in caplog.records if r.name == GIVE_UP_LOG and r.levelno == logging.ERROR] == [
        f"mail {row.id} (test) given up after {attempts} attempt(s), the last one never finished"]


def test_sent_and_failed_messages_are_pruned_after_the_retention(app, registry, engine, mail):
    mail.refuse_next("550 5.1.1 No such mailbox", "451 4.3.0 Try again later")
    for to in ("failed@example.org", "pending@example.org", "sent@example.org"):
        send(registry, to=to)
    old = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=registry["mail.settings"].keep_days + 1)
    with engine.begin() as connection:
        connection.execute(update(OutgoingMail).values(created_at=old))
    prune_mail()
    assert [(row.recipient, row.status) for row in rows(engine)] == [("pending@example.org", "pending")]


def test_each_message_sent_or_not_sent_is_one_line_of_the_log_naming_the_server(app, engine, mail, make_app,
                                                                                   smtp_server, monkeypatch, caplog):
    """A stopped SMTP server is seen in the log at once: one warning per attempt that failed, one line per
    message sent, each naming the message and the server, never the address it goes to."""
    monkeypatch.setenv("CLINICRECORDS_SMTP_URL", "smtp://127.0.0.1:9")  # a stopped server: nothing listens
    down = make_app().registry
    with caplog.at_level(logging.INFO, logger=GIVE_UP_LOG):
        queued = send(down, to="later@example.org")
    [row] = rows(engine)
    attempts = down["mail.settings"].max_attempts
    [waiting] = [r for r in caplog.records if r.name == GIVE_UP_LOG]
    assert waiting.levelno == logging.WARNING
    assert waiting.getMessage().startswith(
        f"mail {row.id} (test) not sent to the SMTP server 127.0.0.1:9, attempt 1 of {attempts}: "
        f"ConnectionRefusedError; next attempt in ")

    monkeypatch.undo()
    caplog.clear()
    make_app()  # the server is back
    make_due(engine)
    with caplog.at_level(logging.INFO, logger=GIVE_UP_LOG):
        sweep_mail()
        [message] = mail.wait_for(1)
    assert message.message["Message-ID"] == queued.message_id
    [sent] = [r for r in caplog.records if r.name == GIVE_UP_LOG]
    assert (sent.levelno, sent.getMessage()) == (
        logging.INFO, f"mail {row.id} (test) sent through the SMTP server 127.0.0.1:{smtp_server.port}")
    assert all("later@example.org" not in r.getMessage() for r in caplog.records)
