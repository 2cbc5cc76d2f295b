"""Events: the per-clinic outbox and change feed, and signed webhooks (docs/events.md)."""

from zope.interface import Interface

from clinicrecords.events.feed import feed_factory
from clinicrecords.events.interfaces import IEventFeed, IWebhookDeliveries, IWebhookEndpoints, IWebhookTester
from clinicrecords.events.representations import event_json
from clinicrecords.events.resources import EventFeed
from clinicrecords.events.schemas import EventOut
from clinicrecords.events.services import delivery_service_factory, endpoint_service_factory, tester_factory
from clinicrecords.events.settings import REGISTRY_KEY as WEBHOOK_SETTINGS
from clinicrecords.events.settings import WebhookSettings
from clinicrecords.settings import app_settings
from clinicrecords.events.metrics import webhook_readings


def includeme(config):
    config.registry[WEBHOOK_SETTINGS] = WebhookSettings.from_settings(app_settings(config.registry))
    config.add_clinic_collection("events", EventFeed)
    config.register_service_factory(feed_factory, iface=IEventFeed, context=Interface)
    config.register_service_factory(endpoint_service_factory, iface=IWebhookEndpoints)
    config.register_service_factory(delivery_service_factory, iface=IWebhookDeliveries)
    config.register_service_factory(tester_factory, iface=IWebhookTester)
    config.add_representation("event", plain=event_json, schema=EventOut)
    config.scan(".views")
    # Registers the Huey tasks in every process that loads the application (web, worker, CLI).
    config.scan(".tasks")
    config.add_metric_source(webhook_readings)
