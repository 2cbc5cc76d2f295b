"""Standard Webhooks verification (https://www.standardwebhooks.com)."""

import base64
import hashlib
import hmac
import json
import time

TOLERANCE_SECONDS = 300


class WebhookVerificationError(Exception):
    pass


def _key(secret):
    return base64.b64decode(secret.removeprefix("whsec_"))


def verify_webhook(secret, headers, body, now=None, tolerance=TOLERANCE_SECONDS):
    """The parsed payload if `webhook-signature` holds a valid v1 signature of `id.timestamp.body` made with
    `secret` (`whsec_...`) and the timestamp is within `tolerance` seconds; WebhookVerificationError otherwise."""
    lowered = {name.lower(): value for name, value in headers.items()}
    try:
        webhook_id, timestamp = lowered["webhook-id"], lowered["webhook-timestamp"]
        signatures = lowered["webhook-signature"].split()
        sent_at = int(timestamp)
    except (KeyError, ValueError):
        raise WebhookVerificationError("missing or malformed webhook headers") from None
    if abs((now if now is not None else time.time()) - sent_at) > tolerance:
        raise WebhookVerificationError("timestamp outside the tolerance")
    body = body if isinstance(body, bytes) else body.encode()
    expected = base64.b64encode(hmac.new(_key(secret), f"{webhook_id}.{sent_at}.".encode() + body,
                                         hashlib.sha256).digest()).decode()
    for candidate in signatures:
        version, _, value = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return json.loads(body)
    raise WebhookVerificationError("no valid signature")
