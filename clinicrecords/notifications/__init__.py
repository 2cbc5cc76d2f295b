"""Notifications by email (decision 0095): each person's settings, the listeners that mail a workspace's
owners or a clinic's admins when another context tells of a moment (`clinicrecords.publishing`), and the daily
review digest to a clinic's clinicians. The contexts that publish know nothing of people or mail; this one
finds the people through the identity context and sends through the mail context, in the transaction of the
moment it tells of."""

from clinicrecords.notifications import listeners
from clinicrecords.notifications.interfaces import INotificationSettings
from clinicrecords.notifications.preferences import notification_settings_factory


def includeme(config):
    config.register_service_factory(notification_settings_factory, iface=INotificationSettings)
    listeners.listen_to_moments(config)
    # Registers the digest's periodic task in every process that loads the application (web, worker, CLI).
    config.scan(".tasks")
