"""The webhook services the portal's pages call (interfaces in `events/interfaces.py`): thin, owner-scoped
doors onto the same functions the operator CLI uses, so there is one webhook implementation.

Other contexts record their events with `emit` from here (the outbox is this context's own), and seal their
own secrets under the webhook keys with `secret_sealer`."""

from sqlalchemy import insert, select
from sqlalchemy.dialects.postgresql import insert as upsert
from zope.interface import classImplements, implementer

from clinicrecords.db import SESSION_FACTORY
from clinicrecords.events import delivery_log, pings, replays, types, webhooks
from clinicrecords.events.interfaces import ISecretSealer, IWebhookDeliveries, IWebhookEndpoints, IWebhookTester
from clinicrecords.events.outbox import emit
from clinicrecords.events.models import EventCounter
from clinicrecords.events.secret_box import PurposeSealer
from clinicrecords.events.settings import webhook_settings


# The permission each review kind's submission.decided needs, named by the review queue at configuration.
permit_submission_kind = types.permit_submission_kind

__all__ = ["delivery_service_factory", "emit", "endpoint_service_factory", "permit_submission_kind",
           "secret_sealer", "tester_factory"]


@implementer(IWebhookEndpoints)
class WebhookEndpointService:
    event_types = tuple(types.EVENT_TYPES)

    def __init__(self, db, settings):
        self.db = db
        self.settings = settings

    def list(self, owner, mode=None):
        return [webhooks.describe(e) for e in
                webhooks.list_endpoints(self.db, owner.workspace_id, owner.clinic_id, mode)]

    def get(self, owner, endpoint_id):
        return webhooks.describe(webhooks.get_endpoint(self.db, endpoint_id, owner=owner))

    def add(self, owner, url, mode=None, event_types=None):
        endpoint, secret = webhooks.add_endpoint(self.db, self.settings, url, workspace_id=owner.workspace_id,
                                                 clinic_id=owner.clinic_id, mode=mode, event_types=event_types)
        return webhooks.describe(endpoint), secret

    def reveal_secret(self, owner, endpoint_id):
        return webhooks.reveal_secret(self.db, self.settings, endpoint_id, owner=owner)

    def rotate_secret(self, owner, endpoint_id, overlap_seconds=None):
        endpoint, secret = webhooks.rotate_secret(self.db, self.settings, endpoint_id,
                                                  overlap_seconds=overlap_seconds, owner=owner)
        return webhooks.describe(endpoint), secret

    def disable(self, owner, endpoint_id):
        return webhooks.describe(webhooks.disable(self.db, endpoint_id, owner=owner))

    def enable(self, owner, endpoint_id):
        return webhooks.describe(webhooks.enable(self.db, endpoint_id, owner=owner))

    def delete(self, owner, endpoint_id):
        webhooks.delete_endpoint(self.db, endpoint_id, owner=owner)


@implementer(IWebhookDeliveries)
class WebhookDeliveryService:
    def __init__(self, db):
        self.db = db

    def log(self, owner, endpoint_id, status=None, limit=delivery_log.DEFAULT_LIMIT, starting_after=None):
        return delivery_log.page(self.db, endpoint_id, status=status, limit=limit, starting_after=starting_after,
                                 owner=owner)

    def resend(self, owner, endpoint_id, delivery_id):
        return replays.resend(self.db, endpoint_id, delivery_id, owner=owner)

    def recover(self, owner, endpoint_id, since):
        return replays.recover(self.db, endpoint_id, since, owner=owner)


@implementer(IWebhookTester)
class WebhookTester:
    """Runs its own transactions: the answer is awaited with no transaction open."""

    def __init__(self, session_factory, settings, registry):
        self.session_factory = session_factory
        self.settings = settings
        self.registry = registry

    def send_test(self, owner, endpoint_id):
        return pings.send_test(self.session_factory, self.settings, endpoint_id, owner=owner, registry=self.registry)


def endpoint_service_factory(context, request):
    return WebhookEndpointService(request.db, webhook_settings(request.registry))


def delivery_service_factory(context, request):
    return WebhookDeliveryService(request.db)


def tester_factory(context, request):
    return WebhookTester(request.registry[SESSION_FACTORY], webhook_settings(request.registry), request.registry)


def last_seq(db):
    """The last seq the clinic's change feed handed out, 0 before the first event (`db` bound to the clinic)."""
    return db.execute(select(EventCounter.value)).scalar() or 0


def continue_seq_after(db, seq):
    """A rebuilt schema's feed carries on after `seq`, so a partner's `after_seq` stays valid (sandbox reset)."""
    db.execute(insert(EventCounter).values(id=1, value=seq))


def restart_after_restore(db, clinic_id, restored_to, gap):
    """After the clinic's records were restored to `restored_to`: its counter moves `gap` past the last seq it
    holds (past any seq handed out since, which partners have seen and skip), and the feed says so with a
    `clinic.restored` event (recorded by the rule every event follows). The seq the counter holds now."""
    statement = upsert(EventCounter).values(id=1, value=gap)
    statement = statement.on_conflict_do_update(index_elements=[EventCounter.id],
                                                set_={"value": EventCounter.value + gap})
    db.execute(statement)
    emit(db, clinic_id, "clinic.restored", clinic_id, {"restored_to": restored_to.isoformat()})
    return last_seq(db)


def announce_clinic_restored(db, clinic_id, restored_to):
    """After one clinic's records were restored from a copy at `restored_to` (None: unknown): the feed goes on
    from its counter, and says so with a `clinic.restored` event."""
    emit(db, clinic_id, "clinic.restored", clinic_id,
         {"restored_to": restored_to.isoformat() if restored_to else None})


# Declared here, not on the class: the modules events.interfaces re-exports from import secret_box.
classImplements(PurposeSealer, ISecretSealer)


def secret_sealer(registry, purpose):
    """An `ISecretSealer` for `purpose` under the application's webhook keys (`secrets.webhook_keys`)."""
    return webhook_settings(registry).secret_box.for_purpose(purpose)
