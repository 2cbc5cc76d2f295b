"""Webhook delivery settings (`webhooks.*` in the ini file), with the documented defaults."""

from dataclasses import dataclass

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

    @classmethod
    def from_settings(cls, settings):
        values = {}
        for name, field in cls.__dataclass_fields__.items():
            raw = settings.get(f"webhooks.{name}")
            if raw is not None:
                values[name] = as_bool(raw) if field.type in (bool, "bool") else float(raw)
        return cls(**values)


def webhook_settings(registry):
    return registry["events.webhook_settings"]
