"""TOTP secrets at rest: sealed with the keys that seal webhook signing secrets (`secrets.webhook_keys`,
production `CLINICRECORDS_WEBHOOK_KEYS`: no key setting of their own), through the events context's
`secret_sealer`, under a purpose of their own. A sealed TOTP secret opens only as a TOTP secret of the same
subject (the factor's id): never as a webhook secret, nor on another factor's row.

After a key rotation, `webhook reseal-secrets` reseals webhook secrets only: TOTP secrets sealed under the old
key are sealed again by the identity context's own reseal (`needs_reseal`, then `open` and `seal`) before the
old key leaves the setting."""

from clinicrecords.events.services import secret_sealer

TOTP_SECRET = "identity.totp_secret"


def totp_secret_sealer(registry):
    """An `events.interfaces.ISecretSealer` for TOTP secrets: `seal(secret, factor_id)`, `open(sealed,
    factor_id)` (raises `SecretBoxError`), `needs_reseal(sealed)`."""
    return secret_sealer(registry, TOTP_SECRET)
