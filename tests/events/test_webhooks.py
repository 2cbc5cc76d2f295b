"""Webhook deliveries to a real receiver on 127.0.0.1, verified with the `standardwebhooks` package."""

import datetime
import ipaddress
import json
import uuid

import pytest
from sqlalchemy import select, update
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from clinicrecords import tasks
from clinicrecords.events import delivery as delivery_module
from clinicrecords.events import failures, transport
from clinicrecords.events.models import WebhookDelivery, WebhookEndpoint
from clinicrecords.events.settings import WebhookSettings
from clinicrecords.events.tasks import sweep_deliveries
from tests.events.support import admin, emit_events, expire_previous_secret, make_due, signed_by


def _deliveries(engine, endpoint_id):
    with engine.connect() as connection:
        return connection.execute(select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)
                                  .order_by(WebhookDelivery.created_at, WebhookDelivery.seq)).all()


def _endpoint(engine, endpoint_id):
    with engine.connect() as connection:
        return connection.execute(select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id)).one()


def _verified(secret, request):
    _, headers, body = request
    return Webhook(secret).verify(body, headers)


def test_an_event_is_delivered_signed_and_is_the_feed_s_event(world, testapp, receiver):
    clinic_id = world.clinic()
    _, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
    [event] = emit_events(world, clinic_id)
    [request] = receiver.requests
    path, headers, body = request
    assert path == "/hooks/clinic-records" and headers["Content-Type"] == "application/json"
    assert headers["webhook-id"] == str(event.id)
    assert headers["webhook-signature"].startswith("v1,") and " " not in headers["webhook-signature"]
    key = world.key(clinic_id=clinic_id)
    [shown] = testapp.get(f"/v1/clinics/{clinic_id}/events", headers={"Authorization": f"Bearer {key}"}).json["events"]
    assert _verified(secret, request) == shown
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body.replace(b'"seq":1', b'"seq":2'), headers)


def test_failures_are_retried_with_the_same_webhook_id_until_accepted(world, engine, make_receiver):
    """The receiver records each request it verifies, then answers 503 three times (as if its answer were
    lost): the application, deduplicating by webhook-id, gets the event once."""
    receiver = make_receiver(answers=[503, 500, 404], default=200)
    clinic_id = world.clinic()
    endpoint_id, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
    [event] = emit_events(world, clinic_id)
    [first] = _deliveries(engine, endpoint_id)
    assert (first.status, first.attempts, first.last_status_code) == ("pending", 1, 503)
    waited = (first.next_attempt_at - first.last_attempt_at).total_seconds()
    assert 5 <= waited <= 10, "retry 1 waits uniform(0.5, 1) × 10 s"
    for _ in range(3):
        make_due(engine, endpoint_id)
        sweep_deliveries()
    [done] = _deliveries(engine, endpoint_id)
    assert (done.status, done.attempts, done.last_status_code) == ("delivered", 4, 200)
    application, webhook_ids = [], set()
    for request in receiver.requests:
        payload = _verified(secret, request)
        if request[1]["webhook-id"] not in webhook_ids:
            webhook_ids.add(request[1]["webhook-id"])
            application.append(payload)
    assert len(receiver.requests) == 4
    assert webhook_ids == {str(event.id)}
    assert [p["id"] for p in application] == [str(event.id)]
    make_due(engine, endpoint_id)
    sweep_deliveries()
    assert len(receiver.requests) == 4, "a delivered event is not sent again"


def test_backoff_grows_exponentially_with_jitter_up_to_the_cap():
    settings = WebhookSettings()

    class Low:
        uniform = staticmethod(lambda a, b: a)

    class High:
        uniform = staticmethod(lambda a, b: b)

    assert [delivery_module.backoff_seconds(settings, n, High) for n in (1, 2, 3, 4)] == [10, 20, 40, 80]
    assert delivery_module.backoff_seconds(settings, 1, Low) == 5
    assert delivery_module.backoff_seconds(settings, 30, High) == 6 * 3600


def test_redirects_are_not_followed(world, engine, make_receiver):
    receiver = make_receiver(default=302)
    clinic_id = world.clinic()
    endpoint_id, _ = world.webhook(clinic_id=clinic_id, url=receiver.url)
    emit_events(world, clinic_id)
    [row] = _deliveries(engine, endpoint_id)
    assert (row.status, row.last_status_code, row.last_error) == ("pending", 302, failures.http_status(302))
    assert "redirects are not followed" in row.last_error
    assert [r[0] for r in receiver.requests] == ["/hooks/clinic-records"]


def test_a_slow_receiver_times_out(world, engine, make_receiver):
    receiver = make_receiver(default=200, delay=3)  # testing.ini: webhooks.timeout_seconds = 2
    clinic_id = world.clinic()
    endpoint_id, _ = world.webhook(clinic_id=clinic_id, url=receiver.url)
    emit_events(world, clinic_id)
    [row] = _deliveries(engine, endpoint_id)
    assert row.status == "pending" and row.last_status_code is None and "no answer within 2 s" in row.last_error


def test_continuous_failure_disables_the_endpoint_and_a_good_ping_enables_it(world, engine, make_receiver):
    receiver = make_receiver(default=500)
    clinic_id = world.clinic()
    endpoint_id, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
    emit_events(world, clinic_id)
    assert _endpoint(engine, endpoint_id).failing_since is not None
    with engine.begin() as connection:
        connection.execute(update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id).values(
            failing_since=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=5, minutes=1)))
    make_due(engine, endpoint_id)
    sweep_deliveries()
    status, listed, _ = admin("webhook", "list", "--clinic", str(clinic_id))
    [entry] = listed["endpoints"]
    assert entry["status"] == "disabled" and entry["disabled_at"] and "failing continuously" in entry["disabled_reason"]
    emit_events(world, clinic_id)
    assert len(_deliveries(engine, endpoint_id)) == 1, "a disabled endpoint is sent nothing new"
    requests_before = len(receiver.requests)
    make_due(engine, endpoint_id)
    sweep_deliveries()
    assert len(receiver.requests) == requests_before, "nor retried"

    status, result, _ = admin("webhook", "test", str(endpoint_id))
    assert status == 0 and result["delivered"] is False and result["endpoint_status"] == "disabled"
    receiver.default = 200
    status, result, _ = admin("webhook", "test", str(endpoint_id))
    assert (result["delivered"], result["status_code"], result["endpoint_status"]) == (True, 200, "enabled")
    [ping] = [_verified(secret, r) for r in receiver.requests if r[1]["webhook-id"] == result["webhook_id"]]
    assert ping["type"] == "webhook.ping"
    assert [row.status for row in _deliveries(engine, endpoint_id) if row.type != "webhook.ping"] == ["delivered"], \
        "the deferred delivery is sent as soon as the endpoint is enabled again"


def test_a_delivery_is_given_up_after_three_days(world, engine, make_receiver):
    receiver = make_receiver(default=500)
    clinic_id = world.clinic()
    endpoint_id, _ = world.webhook(clinic_id=clinic_id, url=receiver.url)
    emit_events(world, clinic_id)
    with engine.begin() as connection:
        connection.execute(update(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id).values(
            created_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=3, minutes=1)))
    make_due(engine, endpoint_id)
    sweep_deliveries()
    [row] = _deliveries(engine, endpoint_id)
    assert (row.status, row.attempts) == ("failed", 2)


def test_an_organization_endpoint_gets_only_connected_clinics_and_granted_types(world, engine, receiver):
    connected = world.connected(scopes={"inventory.items:read"})
    endpoint_id, _ = world.webhook(workspace_id=connected.workspace_id, mode="live", url=receiver.url)
    emit_events(world, connected.clinic_id, type_="inventory.item.created")
    emit_events(world, connected.clinic_id, type_="inventory.availability.changed",
                data={"id": str(uuid.uuid4()), "band": "out", "previous_band": "low"})
    stranger = world.clinic()
    world.webhook(clinic_id=stranger, types=["listing.freshness.changed"])
    emit_events(world, stranger, type_="inventory.item.created")
    assert [json.loads(r[2])["type"] for r in receiver.requests] == ["inventory.item.created"]
    assert {row.clinic_id for row in _deliveries(engine, endpoint_id)} == {connected.clinic_id}


def test_a_revoked_connection_stops_pending_deliveries(world, engine, make_receiver):
    receiver = make_receiver(default=500)
    connected = world.connected()
    endpoint_id, _ = world.webhook(workspace_id=connected.workspace_id, mode="live", url=receiver.url)
    world.webhook(clinic_id=connected.clinic_id, types=["listing.freshness.changed"])  # keeps recording on
    emit_events(world, connected.clinic_id)
    world.revoke_connection(connected.workspace_id, connected.clinic_id)
    receiver.default = 200
    make_due(engine, endpoint_id)
    sweep_deliveries()
    [row] = _deliveries(engine, endpoint_id)
    assert (row.status, row.attempts) == ("cancelled", 1)
    assert len(receiver.requests) == 1


def test_addressed_events_go_only_to_their_owner_and_own_writes_do_not_echo(world, engine, make_receiver):
    sender = world.connected()
    clinic_id = sender.clinic_id
    other_workspace, _ = world.workspace()
    world.grant(other_workspace, clinic_id)
    mine, theirs, clinic_hook = make_receiver(), make_receiver(), make_receiver()
    world.webhook(workspace_id=sender.workspace_id, mode="live", url=mine.url)
    world.webhook(workspace_id=other_workspace, mode="live", url=theirs.url)
    world.webhook(clinic_id=clinic_id, url=clinic_hook.url)
    emit_events(world, clinic_id, type_="submission.decided", audience_id=sender.workspace_id,
                data={"submission_id": str(uuid.uuid4()), "resource_type": "condition", "review_status": "rejected"})
    emit_events(world, clinic_id, type_="inventory.item.updated", origin_id=sender.workspace_id)
    emit_events(world, clinic_id, type_="inventory.availability.changed", origin_id=sender.workspace_id,
                data={"id": str(uuid.uuid4()), "band": "low", "previous_band": "in_stock"})

    def types(receiver):
        return [json.loads(r[2])["type"] for r in receiver.requests]

    assert types(mine) == ["submission.decided", "inventory.availability.changed"]
    assert types(theirs) == ["inventory.item.updated", "inventory.availability.changed"]
    assert types(clinic_hook) == ["inventory.item.updated", "inventory.availability.changed"]


def test_an_endpoint_s_type_filter(world, receiver):
    clinic_id = world.clinic()
    world.webhook(clinic_id=clinic_id, url=receiver.url, types=["inventory.item.updated"])
    emit_events(world, clinic_id, type_="inventory.item.created")
    emit_events(world, clinic_id, type_="inventory.item.updated")
    assert [json.loads(r[2])["type"] for r in receiver.requests] == ["inventory.item.updated"]


def test_secret_rotation_signs_with_both_secrets_during_the_overlap(world, engine, receiver):
    clinic_id = world.clinic()
    endpoint_id, old_secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
    status, rotated, _ = admin("webhook", "rotate-secret", str(endpoint_id))
    new_secret = rotated["secret"]
    assert status == 0 and new_secret.startswith("whsec_") and new_secret != old_secret
    expires = datetime.datetime.fromisoformat(rotated["previous_secret_expires_at"])
    assert datetime.timedelta(hours=23) < expires - datetime.datetime.now(datetime.UTC) <= datetime.timedelta(hours=24)
    emit_events(world, clinic_id)
    signed_by(receiver.requests[-1], [new_secret, old_secret])
    expire_previous_secret(engine, endpoint_id)
    emit_events(world, clinic_id)
    signed_by(receiver.requests[-1], [new_secret], not_by=[old_secret])


def test_the_sweep_requeues_what_a_lost_queue_dropped(world, engine, receiver):
    clinic_id = world.clinic()
    endpoint_id, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
    tasks.huey.immediate = False
    try:
        emit_events(world, clinic_id)
        assert tasks.huey.pending_count() == 1
        tasks.huey.flush()  # the queue is lost
    finally:
        tasks.huey.immediate = True
    sweep_deliveries()
    assert receiver.requests == [], "within the grace period a queued task is still expected"
    with engine.begin() as connection:
        connection.execute(update(WebhookDelivery).values(
            queued_for=datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=2)))
    sweep_deliveries()
    [request] = receiver.requests
    _verified(secret, request)
    assert [row.status for row in _deliveries(engine, endpoint_id)] == ["delivered"]


def test_private_addresses_are_refused_unless_allowed(world):
    production = WebhookSettings()
    for url in ("https://127.0.0.1/x", "https://localhost/x", "https://10.1.2.3/x", "https://169.254.169.254/x",
                "https://[::1]/x", "https://[::ffff:192.168.0.1]/x"):
        with pytest.raises(transport.AddressRefused, match="private"):
            transport.check_url(url)
    with pytest.raises(transport.AddressRefused, match="https"):
        transport.check_url("http://203.0.113.9/x")
    result = transport.post("https://localhost:9/x", b"{}", {}, 1, allow_private=production.allow_private_addresses)
    assert not result.ok and "private" in result.error
    assert transport.check_url("https://93.184.215.14/hook")[4] == "93.184.215.14"


# IPv6 addresses that carry a private IPv4 address the packets end up at (decision 0056).
EMBEDDING_A_PRIVATE_IPV4 = {
    "nat64": "64:ff9b::7f00:1",                               # 127.0.0.1 through the well-known NAT64 prefix
    "nat64-metadata": "64:ff9b::a9fe:a9fe",                   # 169.254.169.254
    "nat64-local-use": "64:ff9b:1::a00:1",                    # 10.0.0.1 through a local-use NAT64 prefix
    "6to4": "2002:a00:1::1",                                  # 10.0.0.1
    "teredo": "2001:0:4136:e378:8000:63bf:f5ff:fffe",         # client 10.0.0.1 (bits inverted)
    "ipv4-compatible": "::7f00:1",                            # ::127.0.0.1
    "ipv4-translated": "::ffff:0:c0a8:1",                     # ::ffff:0:192.168.0.1
    "ipv4-mapped": "::ffff:a9fe:a9fe",                        # ::ffff:169.254.169.254
}


@pytest.mark.parametrize("address", EMBEDDING_A_PRIVATE_IPV4.values(), ids=EMBEDDING_A_PRIVATE_IPV4.keys())
def test_ipv6_addresses_embedding_a_private_ipv4_address_are_refused(address):
    with pytest.raises(transport.AddressRefused, match="private"):
        transport.check_url(f"https://[{address}]/hook")


@pytest.mark.parametrize("address", ["64:ff9b::5db8:d70e", "2002:5db8:d70e::1", "::ffff:5db8:d70e"],
                         ids=["nat64", "6to4", "ipv4-mapped"])
def test_ipv6_addresses_embedding_a_public_ipv4_address_are_accepted(address):
    assert ipaddress.ip_address(transport.check_url(f"https://[{address}]/hook")[4]) == ipaddress.ip_address(address)
