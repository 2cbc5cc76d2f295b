"""What the portal (and the clinic console) use to manage webhooks: found with
`request.find_service(IWebhookEndpoints)` and friends. Every method takes the `Owner` whose endpoints the
caller may manage; another owner's endpoint answers `EndpointNotFound`. Bad input raises `WebhookError`
with a stable `code` and the form `field` at fault; nothing is written then."""

from zope.interface import Attribute, Interface

# What a caller needs besides the interfaces, importable from here (the portal imports this module only).
from clinicrecords.events.owners import Owner
# The moments of an endpoint the events context publishes (clinicrecords.publishing): the notifications listen.
from clinicrecords.events.published import EndpointDisabled, EndpointFailing
from clinicrecords.events.secret_box import SecretBoxError
from clinicrecords.events.errors import EndpointNotFound, WebhookError

__all__ = ["EndpointDisabled", "EndpointFailing",
           "EndpointNotFound", "IEventFeed", "ISecretSealer", "IWebhookDeliveries", "IWebhookEndpoints",
           "IWebhookTester", "Owner", "SecretBoxError", "WebhookError"]


class IWebhookEndpoints(Interface):
    event_types = Attribute("the known event type names, for the form's choices")

    def list(owner, mode=None):
        """The owner's endpoints (dicts as `webhook list` prints them), oldest first."""

    def get(owner, endpoint_id):
        """One endpoint as a dict."""

    def add(owner, url, mode=None, event_types=None):
        """(endpoint dict, signing secret). https only, except plain http to loopback where
        `webhooks.require_https` is off; event_types None: every type."""

    def reveal_secret(owner, endpoint_id):
        """The current signing secret, opened on demand."""

    def rotate_secret(owner, endpoint_id, overlap_seconds=None):
        """(endpoint dict, new secret); the previous one also signs until `previous_secret_expires_at`."""

    def disable(owner, endpoint_id):
        """Stop sending; returns the endpoint dict."""

    def enable(owner, endpoint_id):
        """Resume sending (pending deliveries are due at once); returns the endpoint dict."""

    def delete(owner, endpoint_id):
        """The endpoint, its secrets and its deliveries."""


class IWebhookDeliveries(Interface):
    def log(owner, endpoint_id, status=None, limit=20, starting_after=None):
        """A `LogPage`: deliveries newest first, each with its attempts; `next_cursor` for the next page."""

    def resend(owner, endpoint_id, delivery_id):
        """Send one earlier delivery again as a new one; returns its ids."""

    def recover(owner, endpoint_id, since):
        """Send every kept event since `since` (aware datetime, last 30 days) again; returns how many."""


class IWebhookTester(Interface):
    def send_test(owner, endpoint_id):
        """Send a signed test event now and return the receiver's answer (status_code, duration_ms, the
        first 1 KiB as response_body, error, delivered, endpoint_status)."""


class IEventFeed(Interface):
    def page(after_seq, limit, now=None):
        """(events, next_after): the clinic's kept events after `after_seq` that the calling key may see now
        (its granted permissions, its own-origin rule), in seq order."""


class ISecretSealer(Interface):
    """Another context's secrets sealed at rest under the webhook keys (`secrets.webhook_keys`: no key setting
    of their own), for one purpose: what is sealed for a purpose opens only for that purpose and subject,
    never as a webhook secret. From `events.services.secret_sealer(registry, purpose)`."""

    purpose = Attribute("the purpose's name, e.g. identity.totp_secret")

    def seal(secret, subject_id):
        """`v1:<key id>:<base64url(nonce || ciphertext || tag)>` (AES-256-GCM, a fresh nonce each time), bound to
        the purpose and to `subject_id` (the UUID of what it belongs to)."""

    def open(sealed, subject_id):
        """The secret; raises `SecretBoxError` for another purpose's or subject's value, an altered one, or one
        sealed under a key no longer configured."""

    def needs_reseal(sealed):
        """True when it was sealed under another key than the current one (after a key rotation: open and seal
        again)."""
