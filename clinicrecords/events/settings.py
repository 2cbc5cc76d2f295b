"""Webhook delivery settings (`webhooks.*` in the ini file), with the documented defaults."""

from dataclasses import dataclass, field, fields

from clinicrecords.events.secret_box import SETTING as KEYS_SETTING
from clinicrecords.events.secret_box import SecretBox
from clinicrecords.settings import as_bool

DAY = 86400


@dataclass(frozen=True)
class WebhookSettings:
    timeout_seconds: float = 10.0
    retry_base_seconds: float = 10.0
    retry_cap_seconds: float = 6 * 3600
    give_up_after_seconds: float = 3 * DAY
    disable_after_seconds: float = 5 * DAY
    claim_seconds: float = 60.0
    sweep_grace_seconds: float = 60.0
    secret_overlap_seconds: float = DAY
    allow_private_addresses: bool = False
    require_https: bool = True
    # Seals and opens the endpoints' signing secrets (`secrets.webhook_keys`); None only in unit tests.
    secret_box: SecretBox | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_settings(cls, settings):
        values = {"secret_box": SecretBox.from_setting(settings.get(KEYS_SETTING))}
        for setting in fields(cls):
            raw = settings.get(f"webhooks.{setting.name}")
            if raw is not None and setting.name != "secret_box":
                values[setting.name] = as_bool(raw) if setting.type in (bool, "bool") else float(raw)
        return cls(**values)


def webhook_settings(registry):
    return registry["events.webhook_settings"]
