"""TOTP secrets at rest: sealed with the keys that seal webhook signing secrets (`secrets.webhook_keys`,
production `CLINICRECORDS_WEBHOOK_KEYS`: no key setting of their own), through the events context's
`secret_sealer(registry, TOTP_SECRET)`, under this purpose of their own. A sealed TOTP secret opens only as a
TOTP secret of the same subject (the factor's id): never as a webhook secret, nor on another factor's row.

The caller (the portal's pages) asks events for the sealer: identity imports no context that reads it (the API
key's statement in access composes identity's terms record, and events imports access).

After a key rotation, `webhook reseal-secrets` reseals webhook secrets only: TOTP secrets sealed under the old
key are sealed again by the identity context's own reseal (`needs_reseal`, then `open` and `seal`) before the
old key leaves the setting."""

TOTP_SECRET = "identity.totp_secret"
