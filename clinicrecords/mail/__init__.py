"""Mail: messages written to an outbox in the caller's transaction and sent over SMTP by the worker, retried
until sent; in development written to files instead (`docs/architecture.md`, Mail)."""

from clinicrecords.mail.interfaces import IMail
from clinicrecords.mail.services import mail_service_factory
from clinicrecords.mail.settings import REGISTRY_KEY, MailSettings
from clinicrecords.settings import app_settings
from clinicrecords.mail.metrics import mail_readings


def includeme(config):
    config.registry[REGISTRY_KEY] = MailSettings.from_settings(app_settings(config.registry))
    config.register_service_factory(mail_service_factory, iface=IMail)
    # Registers the Huey tasks in every process that loads the application (web, worker, CLI).
    config.scan(".tasks")
    config.add_metric_source(mail_readings)
