"""Webhook delivery settings: the `webhooks.*` settings (declared with their defaults in
clinicrecords.settings) and the key ring that seals the endpoints' signing secrets."""

from dataclasses import asdict, dataclass, field

from clinicrecords.events.secret_box import SecretBox
from clinicrecords.settings import WebhookDeliverySettings

# The WebhookSettings the application delivers with, kept in the registry by clinicrecords.events.
REGISTRY_KEY = "events.webhook_settings"


@dataclass(frozen=True)
class WebhookSettings(WebhookDeliverySettings):
    # Seals and opens the endpoints' signing secrets (`secrets.webhook_keys`); None only in unit tests.
    secret_box: SecretBox | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_settings(cls, settings):
        """From the application's settings (an AppSettings); a missing or malformed key ring stops start-up."""
        return cls(**asdict(settings.webhooks), secret_box=SecretBox.from_setting(settings.secrets.webhook_keys))


def webhook_settings(registry):
    return registry[REGISTRY_KEY]
