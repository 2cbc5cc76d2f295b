"""The mail outbox's gauges, read when Prometheus scrapes (clinicrecords.observability): one query."""

from sqlalchemy import func, select

from clinicrecords.mail.models import OutgoingMail

_READINGS = select(func.count().filter(OutgoingMail.status == "pending"),
                   func.count().filter(OutgoingMail.status == "failed")).select_from(OutgoingMail)


def mail_readings(connection):
    pending, failed = connection.execute(_READINGS).one()
    return [("clinicrecords_mail_outbox_pending", "Messages in the outbox not yet sent", pending),
            ("clinicrecords_mail_outbox_failed", "Messages given up after their last attempt", failed)]
