"""Webhook endpoints as the portal's pages manage them: a workspace's (its members) or a clinic's own (its
admins). Every call goes to the events package's services with that `Owner`; their refusals come back as a
FormError on the field at fault, and every action is written to the portal's audit trail with the account
and the owner (endpoints named by URL, never a secret)."""

import datetime
from zope.interface import implementer

from clinicrecords.events.interfaces import IWebhookDeliveries, IWebhookEndpoints, IWebhookTester, WebhookError
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit
from clinicrecords.portal.webhooks.interfaces import IWebhookPages

MODES = ("test", "live")
CLINIC_MODES = ("live",)
OVERLAPS = {"now": 0, "1h": 3600, "24h": 86400, "7d": 7 * 86400}
STATUS_FILTERS = ("pending", "delivered", "failed", "cancelled")


def as_form_error(error, field):
    """A service's refusal, as the form shows it: by its own field, else by the form's main one."""
    message = str(error)
    return FormError(error.field or field, message[:1].upper() + message[1:])


def modes_of(owner):
    """A workspace has test and live endpoints (test: its sandbox clinic's events); a clinic's own endpoints
    are live only, as its key is: the events service refuses any other mode for them."""
    return CLINIC_MODES if owner.clinic_id else MODES


def parse_since(text):
    """A UTC time as a datetime-local field sends it (2026-11-24T08:00) or ISO 8601 with an offset."""
    text = (text or "").strip().replace(" ", "T")
    try:
        since = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise FormError("since", "Enter a time like 2026-11-24T08:00 (UTC)") from None
    return since if since.tzinfo else since.replace(tzinfo=datetime.UTC)


@implementer(IWebhookPages)
class WebhookPages:
    def __init__(self, endpoints, deliveries, tester, audit):
        self.endpoints = endpoints
        self.deliveries = deliveries
        self.tester = tester
        self.audit = audit

    @property
    def event_types(self):
        return self.endpoints.event_types

    def _record(self, action, owner, account_id, endpoint, **details):
        self.audit.record(action, account_id=account_id, workspace_id=owner.workspace_id,
                          clinic_id=owner.clinic_id, target=endpoint["url"],
                          endpoint_id=endpoint["endpoint_id"], mode=endpoint["mode"], **details)

    def list(self, owner, mode):
        modes = modes_of(owner)
        return self.endpoints.list(owner, mode if mode in modes else modes[0])

    def add(self, owner, mode, url, chosen_types, account_id):
        """The endpoint; a face with one mode needs none chosen."""
        modes = modes_of(owner)
        if len(modes) == 1 and not mode:
            mode = modes[0]
        if mode not in modes:
            raise FormError("mode", "Choose test or live" if len(modes) > 1
                            else "A clinic's endpoints are live")
        if not url.strip():
            raise FormError("url", "Enter the URL that receives the events")
        try:
            endpoint, _ = self.endpoints.add(owner, url.strip(), mode=mode,
                                             event_types=list(chosen_types) or None)
        except WebhookError as error:
            raise as_form_error(error, "url") from None
        self._record("webhook.added", owner, account_id, endpoint, types=endpoint["types"] or "every type")
        return endpoint

    def reveal_secret(self, owner, endpoint, account_id):
        secret = self.endpoints.reveal_secret(owner, endpoint["endpoint_id"])
        self._record("webhook.secret_revealed", owner, account_id, endpoint)
        return secret

    def rotate_secret(self, owner, endpoint, overlap_choice, account_id):
        """(endpoint, new secret); the previous secret keeps signing too until the overlap ends."""
        if overlap_choice not in OVERLAPS:
            raise FormError("overlap", "Choose how long the current secret keeps signing")
        try:
            rotated, secret = self.endpoints.rotate_secret(owner, endpoint["endpoint_id"],
                                                           overlap_seconds=OVERLAPS[overlap_choice])
        except WebhookError as error:
            raise as_form_error(error, "overlap") from None
        self._record("webhook.secret_rotated", owner, account_id, endpoint, overlap=overlap_choice,
                     previous_secret_expires_at=rotated["previous_secret_expires_at"])
        return rotated, secret

    def disable(self, owner, endpoint, account_id):
        disabled = self.endpoints.disable(owner, endpoint["endpoint_id"])
        self._record("webhook.disabled", owner, account_id, endpoint)
        return disabled

    def enable(self, owner, endpoint, account_id):
        enabled = self.endpoints.enable(owner, endpoint["endpoint_id"])
        self._record("webhook.enabled", owner, account_id, endpoint)
        return enabled

    def delete(self, owner, endpoint, account_id):
        self.endpoints.delete(owner, endpoint["endpoint_id"])
        self._record("webhook.deleted", owner, account_id, endpoint)

    def send_test(self, owner, endpoint, account_id):
        """The receiver's answer (status_code, duration_ms, the first 1 KiB, error)."""
        try:
            answer = self.tester.send_test(owner, endpoint["endpoint_id"])
        except WebhookError as error:
            raise as_form_error(error, "test") from None
        self._record("webhook.test_sent", owner, account_id, endpoint, status_code=answer["status_code"])
        return answer

    def log(self, owner, endpoint, status, starting_after):
        """A page of deliveries; an unknown status filter or cursor shows the newest deliveries instead."""
        status = status if status in STATUS_FILTERS else None
        try:
            return self.deliveries.log(owner, endpoint["endpoint_id"], status=status,
                                       starting_after=starting_after or None)
        except WebhookError:
            return self.deliveries.log(owner, endpoint["endpoint_id"], status=status)

    def resend(self, owner, endpoint, delivery_id, account_id):
        try:
            sent = self.deliveries.resend(owner, endpoint["endpoint_id"], delivery_id)
        except WebhookError as error:
            raise as_form_error(error, "resend") from None
        self._record("webhook.resent", owner, account_id, endpoint, delivery_id=delivery_id,
                     new_delivery_id=sent["delivery_id"])
        return sent

    def recover(self, owner, endpoint, since_text, account_id):
        """The number of events queued again since the time entered."""
        since = parse_since(since_text)
        try:
            queued = self.deliveries.recover(owner, endpoint["endpoint_id"], since)
        except WebhookError as error:
            raise as_form_error(error, "since") from None
        self._record("webhook.recovered", owner, account_id, endpoint, since=since.isoformat(), queued=queued)
        return queued


def webhook_pages_factory(context, request):
    return WebhookPages(request.find_service(IWebhookEndpoints), request.find_service(IWebhookDeliveries),
                        request.find_service(IWebhookTester), request.find_service(IPortalAudit))
