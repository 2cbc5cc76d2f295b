"""Helpers for the mail tests: sending through the service in a transaction of its own, reading the outbox,
and letting time pass."""

import datetime

from sqlalchemy import func, select, update

from clinicrecords.mail.interfaces import IMail
from clinicrecords.mail.models import OutgoingMail
from clinicrecords.tasks import prepared_request


def send(registry, template="test", to="someone@example.org", regarding="the workspace Acme", **values):
    """One message through the service, in a transaction of its own that commits."""
    with prepared_request(registry) as request:
        with request.tm:
            return request.find_service(IMail).send(template, to, regarding=regarding, **values)


def link(registry, path, **query):
    with prepared_request(registry) as request:
        return request.find_service(IMail).link(path, **query)


def rows(engine):
    with engine.connect() as connection:
        return connection.execute(select(OutgoingMail).order_by(OutgoingMail.created_at)).all()


def row_count(engine):
    with engine.connect() as connection:
        return connection.execute(select(func.count()).select_from(OutgoingMail)).scalar()


def make_due(engine, **changes):
    """Let time pass: every pending message is due now and no queued task is expected to send it."""
    past = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)
    with engine.begin() as connection:
        connection.execute(update(OutgoingMail).where(OutgoingMail.status == "pending")
                           .values(next_attempt_at=past, queued_for=None, **changes))
