"""Webhook endpoints in the portal: a workspace's (per mode) and, in the clinic console, a clinic's own
(live). Add, the endpoint's page (secret on demand, test event, deliveries log, resend, recover), rotate the
secret, disable, enable, delete. Pages only: the endpoints, deliveries and tests are the events package's
services (clinicrecords/events/interfaces.py). Included after `.staff`, whose directive hangs the clinic
face."""

from clinicrecords.portal.console.resources import add_clinic_child
from clinicrecords.portal.webhooks.interfaces import IWebhookPages
from clinicrecords.portal.webhooks.resources import ClinicWebhooks, WorkspaceWebhooks
from clinicrecords.portal.webhooks.services import webhook_pages_factory
from clinicrecords.portal.developer.workspaces.resources import add_workspace_child


def includeme(config):
    config.register_service_factory(webhook_pages_factory, iface=IWebhookPages)
    add_workspace_child(config, "webhooks", WorkspaceWebhooks)
    add_clinic_child(config, "webhooks", ClinicWebhooks)
    config.scan(".views")
