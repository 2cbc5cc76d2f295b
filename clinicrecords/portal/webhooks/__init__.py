"""Webhook endpoints in the portal, per mode: add, the endpoint's page (secret on demand, test event,
deliveries log, resend, recover), rotate the secret, disable, enable, delete. Pages only: the endpoints, deliveries and
tests are the events package's services (clinicrecords/events/interfaces.py)."""

from clinicrecords.portal.webhooks.interfaces import IWebhookPages
from clinicrecords.portal.webhooks.resources import WebhooksCollection
from clinicrecords.portal.webhooks.services import webhook_pages_factory


def includeme(config):
    config.register_service_factory(webhook_pages_factory, iface=IWebhookPages)
    config.add_workspace_child("webhooks", WebhooksCollection)
    config.scan(".views")
