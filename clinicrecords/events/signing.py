"""Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
`webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, several space-separated during a
secret rotation's overlap. Secrets are `whsec_<base64 of 32 random bytes>`."""

import base64
import hashlib
import hmac
import secrets

PREFIX = "whsec_"


def new_secret():
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def _key(secret):
    return base64.b64decode(secret[len(PREFIX):] if secret.startswith(PREFIX) else secret)


def signature(secret, webhook_id, timestamp, body):
    content = f"{webhook_id}.{int(timestamp)}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(_key(secret), content, hashlib.sha256).digest()).decode()


def headers(secrets_in_use, webhook_id, timestamp, body):
    return {
        "webhook-id": str(webhook_id),
        "webhook-timestamp": str(int(timestamp)),
        "webhook-signature": " ".join(signature(s, webhook_id, timestamp, body) for s in secrets_in_use),
    }
