"""The webhook deliveries' gauges, read when Prometheus scrapes (clinicrecords.observability): one query."""

from sqlalchemy import func, select

from clinicrecords.events.models import WebhookDelivery, WebhookEndpoint

_PENDING = WebhookDelivery.status == "pending"
_READINGS = select(
    func.count().filter(_PENDING),
    func.coalesce(func.extract("epoch", func.now() - func.min(WebhookDelivery.created_at).filter(_PENDING)), 0),
    func.count().filter(WebhookDelivery.status == "failed"),
    select(func.count()).where(WebhookEndpoint.disabled_at.is_not(None)).scalar_subquery(),
).select_from(WebhookDelivery)


def webhook_readings(connection):
    pending, oldest, failed, disabled = connection.execute(_READINGS).one()
    return [
        ("clinicrecords_webhook_deliveries_pending", "Webhook deliveries not yet delivered nor given up", pending),
        ("clinicrecords_webhook_deliveries_oldest_pending_age_seconds",
         "Age of the oldest pending webhook delivery (0: none pending)", float(oldest)),
        ("clinicrecords_webhook_deliveries_failed", "Webhook deliveries given up after their last attempt", failed),
        ("clinicrecords_webhook_endpoints_disabled", "Webhook endpoints disabled (by failures or by hand)", disabled),
    ]
