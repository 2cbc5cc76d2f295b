"""The webhook services the portal's pages call, found by interface on a real request, against a real
receiver on 127.0.0.1; signatures verified with the `standardwebhooks` package."""

import contextlib
import dataclasses
import datetime
import json
import uuid

import pytest
from sqlalchemy import func, select
from standardwebhooks.webhooks import Webhook

from clinicrecords.events import delivery, failures, replays
from clinicrecords.events.interfaces import (EndpointNotFound, IWebhookDeliveries, IWebhookEndpoints, IWebhookTester,
                                               Owner, WebhookError)
from clinicrecords.events.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from clinicrecords.events.services import WebhookEndpointService, WebhookTester
from clinicrecords.events.settings import webhook_settings
from clinicrecords.events.tasks import sweep_deliveries
from tests.events.support import emit_events, expire_previous_secret, make_due, signed_by


@contextlib.contextmanager
def service(world, iface):
    """The service as a portal view finds it, in a request whose transaction commits at the end."""
    with world.request() as request:
        yield request.find_service(iface)


def call(world, iface, method, *args, **kwargs):
    with service(world, iface) as found:
        return getattr(found, method)(*args, **kwargs)


def refusal(world, iface, method, *args, **kwargs):
    with pytest.raises(WebhookError) as refused:
        call(world, iface, method, *args, **kwargs)
    return refused.value


def counts(engine):
    with engine.connect() as connection:
        return tuple(connection.execute(select(func.count()).select_from(model)).scalar()
                     for model in (WebhookEndpoint, WebhookDelivery, WebhookAttempt))


def rows_of(engine, endpoint_id):
    """(endpoints, deliveries, attempts) of one endpoint: what delete must leave none of."""
    deliveries = select(WebhookDelivery.id).where(WebhookDelivery.endpoint_id == endpoint_id)
    with engine.connect() as connection:
        return tuple(connection.execute(select(func.count()).select_from(model).where(condition)).scalar()
                     for model, condition in ((WebhookEndpoint, WebhookEndpoint.id == endpoint_id),
                                              (WebhookDelivery, WebhookDelivery.endpoint_id == endpoint_id),
                                              (WebhookAttempt, WebhookAttempt.delivery_id.in_(deliveries))))


def verified(secret, request):
    _, headers, body = request
    return Webhook(secret).verify(body, headers)


def sandbox_owner(world):
    workspace_id, sandbox_id = world.workspace()
    return Owner.workspace(workspace_id), sandbox_id


def test_add_checks_url_mode_and_types_and_writes_nothing_when_refused(world, engine, registry, receiver):
    owner, _ = sandbox_owner(world)
    before = counts(engine)
    for kwargs, code, field in (
            ({"event_types": ["inventory.item.created", "no.such.type"]}, "unknown_event_type", "types"),
            ({"event_types": []}, "no_event_types", "types"),
            ({"mode": "staging"}, "invalid_mode", "mode"),
            ({"url": "http://203.0.113.7/hook"}, "url_refused", "url"),
            ({"url": "ftp://127.0.0.1/hook"}, "url_refused", "url")):
        arguments = {"url": receiver.url, "mode": "test", **kwargs}
        error = refusal(world, IWebhookEndpoints, "add", owner, **arguments)
        assert (error.code, error.field) == (code, field), kwargs
    assert "loopback" in refusal(world, IWebhookEndpoints, "add", owner, "http://203.0.113.7/hook", "live").args[0]
    assert counts(engine) == before

    production = dataclasses.replace(webhook_settings(registry), require_https=False, allow_private_addresses=False)
    with world.db() as db:
        with pytest.raises(WebhookError, match="private"):
            WebhookEndpointService(db, production).add(owner, receiver.url, "live")
        strict = dataclasses.replace(production, require_https=True)
        with pytest.raises(WebhookError, match="https"):
            WebhookEndpointService(db, strict).add(owner, receiver.url, "live")
    assert counts(engine) == before

    added, secret = call(world, IWebhookEndpoints, "add", owner, receiver.url, "test",
                         ["inventory.item.updated", "inventory.item.created"])
    assert added["types"] == ["inventory.item.created", "inventory.item.updated"]
    assert (added["mode"], added["status"], added["owner"]["id"]) == ("test", "enabled", str(owner.workspace_id))
    assert call(world, IWebhookEndpoints, "reveal_secret", owner, added["endpoint_id"]) == secret
    assert [e["endpoint_id"] for e in call(world, IWebhookEndpoints, "list", owner, "test")] == [added["endpoint_id"]]
    assert call(world, IWebhookEndpoints, "list", owner, "live") == []
    with engine.connect() as connection:
        sealed = connection.execute(select(WebhookEndpoint.secret_sealed)).scalars().all()
    assert all(secret not in value for value in sealed), "sealed at rest"
    with service(world, IWebhookEndpoints) as endpoints:
        assert set(endpoints.event_types) >= {"inventory.item.created", "submission.decided"}


def test_another_owner_s_endpoint_is_unknown(world, engine, receiver):
    owner, _ = sandbox_owner(world)
    stranger, _ = sandbox_owner(world)
    added, _ = call(world, IWebhookEndpoints, "add", owner, receiver.url, "test")
    endpoint_id = added["endpoint_id"]
    before = counts(engine)
    for iface, method, args in (
            (IWebhookEndpoints, "get", ()), (IWebhookEndpoints, "reveal_secret", ()),
            (IWebhookEndpoints, "rotate_secret", ()), (IWebhookEndpoints, "disable", ()),
            (IWebhookEndpoints, "enable", ()), (IWebhookEndpoints, "delete", ()),
            (IWebhookDeliveries, "log", ()), (IWebhookDeliveries, "recover", (datetime.datetime.now(datetime.UTC),)),
            (IWebhookTester, "send_test", ())):
        with pytest.raises(EndpointNotFound) as refused:
            call(world, iface, method, stranger, endpoint_id, *args)
        assert refused.value.code == "not_found", method
    assert call(world, IWebhookEndpoints, "list", stranger) == []
    assert counts(engine) == before and receiver.requests == []


def test_a_test_event_returns_the_receiver_s_answer_and_shows_in_the_log(world, engine, make_receiver):
    answer = "ü" * 400 + "x" * 2000  # 800 bytes of two-byte characters, then more than the 1 KiB kept
    receiver = make_receiver(default=201, body=answer.encode())
    owner, _ = sandbox_owner(world)
    added, secret = call(world, IWebhookEndpoints, "add", owner, receiver.url, "test")
    result = call(world, IWebhookTester, "send_test", owner, added["endpoint_id"])
    assert (result["delivered"], result["status_code"], result["error"]) == (True, 201, None)
    assert result["response_body"] == answer.encode()[:1024].decode()
    assert 0 <= result["duration_ms"] < 2000
    [request] = receiver.requests
    ping = verified(secret, request)
    assert (ping["type"], ping["id"], request[1]["webhook-id"]) == ("webhook.ping", result["webhook_id"],
                                                                   result["webhook_id"])
    [logged] = call(world, IWebhookDeliveries, "log", owner, added["endpoint_id"]).deliveries
    assert (logged["delivery_id"], logged["type"], logged["status"]) == (result["delivery_id"], "webhook.ping",
                                                                          "delivered")
    [attempt] = logged["attempt_log"]
    assert (attempt["status_code"], attempt["response_body"], attempt["next_attempt_at"]) == (
        201, result["response_body"], None)
    with engine.connect() as connection:
        stored = connection.execute(select(func.octet_length(WebhookAttempt.response_body)).where(
            WebhookAttempt.delivery_id == uuid.UUID(result["delivery_id"]))).scalar_one()
    assert stored == 1024, "stored truncated: never more than the first 1 KiB"


def test_an_answer_that_is_not_text_is_stored_readable(world, make_receiver):
    receiver = make_receiver(default=400, body=b"bad\x00\xffinput")
    owner, _ = sandbox_owner(world)
    added, _ = call(world, IWebhookEndpoints, "add", owner, receiver.url, "test")
    result = call(world, IWebhookTester, "send_test", owner, added["endpoint_id"])
    assert (result["delivered"], result["status_code"], result["error"]) == (False, 400, failures.http_status(400))
    assert result["response_body"] == "bad\ufffd\ufffdinput"
    [logged] = call(world, IWebhookDeliveries, "log", owner, added["endpoint_id"], status="failed").deliveries
    assert logged["attempt_log"][0]["response_body"] == "bad\ufffd\ufffdinput"


def test_a_test_event_is_bounded_in_time_and_refused_to_private_addresses(world, registry, make_receiver):
    owner, _ = sandbox_owner(world)
    slow = make_receiver(default=200, delay=5)  # testing.ini: webhooks.timeout_seconds = 2
    added, _ = call(world, IWebhookEndpoints, "add", owner, slow.url, "test")
    result = call(world, IWebhookTester, "send_test", owner, added["endpoint_id"])
    assert (result["delivered"], result["status_code"]) == (False, None)
    assert "no answer within 2 s" in result["error"] and 1900 <= result["duration_ms"] < 4000
    assert result["endpoint_status"] == "failing"

    quiet = make_receiver()
    added, _ = call(world, IWebhookEndpoints, "add", owner, quiet.url, "test")
    production = dataclasses.replace(webhook_settings(registry), allow_private_addresses=False)
    result = WebhookTester(registry["db.session_factory"], production, registry).send_test(owner, added["endpoint_id"])
    assert result["delivered"] is False and "private" in result["error"] and quiet.requests == []


def test_an_endpoint_whose_address_embeds_a_private_ipv4_address_is_not_sent_to(world, registry):
    """An endpoint stored before the check knew these addresses (or whose name now resolves to one): each
    attempt checks the address again, so nothing is sent (before, the attempt went out to 127.0.0.1 through
    the NAT64 prefix)."""
    owner, _ = sandbox_owner(world)
    added, _ = call(world, IWebhookEndpoints, "add", owner, "https://[64:ff9b::7f00:1]:9/hook", "test")
    production = dataclasses.replace(webhook_settings(registry), allow_private_addresses=False)
    result = WebhookTester(registry["db.session_factory"], production, registry).send_test(owner, added["endpoint_id"])
    assert result["delivered"] is False and result["status_code"] is None
    assert "private" in result["error"], result["error"]


def test_the_log_records_every_attempt_and_is_filtered_and_paged(world, engine, make_receiver):
    receiver = make_receiver(answers=[503], default=200, body=b'{"ok": true}')
    receiver.body = b"busy"
    clinic_id = world.clinic()
    owner = Owner.clinic(clinic_id)
    added, _ = call(world, IWebhookEndpoints, "add", owner, receiver.url)
    endpoint_id = added["endpoint_id"]
    [event] = emit_events(world, clinic_id)
    receiver.body = b'{"ok": true}'
    make_due(engine, uuid.UUID(endpoint_id))
    sweep_deliveries()
    [first] = call(world, IWebhookDeliveries, "log", owner, endpoint_id).deliveries
    assert (first["webhook_id"], first["status"], first["attempts"]) == (str(event.id), "delivered", 2)
    failed, succeeded = first["attempt_log"]
    assert (failed["status_code"], failed["response_body"], failed["error"]) == (
        503, "busy", "The receiver answered 503 Service Unavailable: only a 2xx answer counts as delivered.")
    assert failed["next_attempt_at"] > failed["attempted_at"] and failed["duration_ms"] >= 0
    assert (succeeded["status_code"], succeeded["response_body"], succeeded["next_attempt_at"]) == (
        200, '{"ok": true}', None)

    for _ in range(4):  # one transaction each: the log's order is the deliveries' creation
        emit_events(world, clinic_id)
    pages, cursor = [], None
    while True:
        page = call(world, IWebhookDeliveries, "log", owner, endpoint_id, limit=2, starting_after=cursor)
        pages.append([d["seq"] for d in page.deliveries])
        cursor = page.next_cursor
        if not page.has_more:
            break
    assert pages == [[5, 4], [3, 2], [1]]
    assert call(world, IWebhookDeliveries, "log", owner, endpoint_id, status="failed").deliveries == []
    assert len(call(world, IWebhookDeliveries, "log", owner, endpoint_id, status="delivered").deliveries) == 5
    assert refusal(world, IWebhookDeliveries, "log", owner, endpoint_id, status="lost").code == "invalid_status"
    assert refusal(world, IWebhookDeliveries, "log", owner, endpoint_id, limit=0).code == "invalid_limit"
    other, _ = call(world, IWebhookEndpoints, "add", owner, receiver.url)
    foreign_cursor = first["delivery_id"]
    assert refusal(world, IWebhookDeliveries, "log", owner, other["endpoint_id"],
                   starting_after=foreign_cursor).code == "invalid_cursor"


def test_resend_one_delivery_and_recover_everything_since_a_time(world, engine, make_receiver):
    receiver = make_receiver()
    clinic_id = world.clinic()
    owner = Owner.clinic(clinic_id)
    added, secret = call(world, IWebhookEndpoints, "add", owner, receiver.url)
    endpoint_id = added["endpoint_id"]
    events = [emit_events(world, clinic_id)[0] for _ in range(3)]
    assert len(receiver.requests) == 3
    second = call(world, IWebhookDeliveries, "log", owner, endpoint_id).deliveries[1]
    resent = call(world, IWebhookDeliveries, "resend", owner, endpoint_id, second["delivery_id"])
    assert resent["webhook_id"] == str(events[1].id) and resent["delivery_id"] != second["delivery_id"]
    assert verified(secret, receiver.requests[-1])["id"] == str(events[1].id)

    since = events[1].created_at
    assert call(world, IWebhookDeliveries, "recover", owner, endpoint_id, since) == 2
    assert [verified(secret, r)["seq"] for r in receiver.requests[-2:]] == [2, 3]
    now = datetime.datetime.now(datetime.UTC)
    for bad_since, code in ((now - datetime.timedelta(days=31), "invalid_since"),
                            (now + datetime.timedelta(minutes=5), "invalid_since"),
                            (since.replace(tzinfo=None), "invalid_since")):
        assert refusal(world, IWebhookDeliveries, "recover", owner, endpoint_id, bad_since).code == code
    assert refusal(world, IWebhookDeliveries, "resend", owner, endpoint_id,
                   events[0].id).code == "not_found", "an event id is not a delivery id"
    assert len(call(world, IWebhookDeliveries, "log", owner, endpoint_id, limit=100).deliveries) == 6


def test_recover_is_all_or_nothing(world, engine, receiver, monkeypatch):
    clinic_id = world.clinic()
    owner = Owner.clinic(clinic_id)
    added, _ = call(world, IWebhookEndpoints, "add", owner, receiver.url)
    [first, *_] = emit_events(world, clinic_id, 3)
    monkeypatch.setattr(replays, "REPLAY_LIMIT", 2)
    before = rows_of(engine, uuid.UUID(added["endpoint_id"]))
    error = refusal(world, IWebhookDeliveries, "recover", owner, added["endpoint_id"], first.created_at)
    assert (error.code, error.field) == ("too_many_events", "since")
    assert rows_of(engine, uuid.UUID(added["endpoint_id"])) == before and len(receiver.requests) == 3
    monkeypatch.setattr(replays, "REPLAY_LIMIT", 3)
    assert call(world, IWebhookDeliveries, "recover", owner, added["endpoint_id"], first.created_at) == 3


def test_recover_after_an_outage_covers_every_connected_clinic_and_the_time_disabled(world, engine, make_receiver):
    receiver = make_receiver()
    connected = world.connected()
    second_clinic = world.clinic()
    world.grant(connected.workspace_id, second_clinic)
    owner = Owner.workspace(connected.workspace_id)
    added, secret = call(world, IWebhookEndpoints, "add", owner, receiver.url, "live")
    endpoint_id = added["endpoint_id"]
    started = datetime.datetime.now(datetime.UTC)
    call(world, IWebhookEndpoints, "disable", owner, endpoint_id)
    emit_events(world, connected.clinic_id)
    emit_events(world, second_clinic, 2)
    assert receiver.requests == [], "a disabled endpoint is sent nothing"
    assert refusal(world, IWebhookDeliveries, "recover", owner, endpoint_id, started).code == "endpoint_disabled"
    call(world, IWebhookEndpoints, "enable", owner, endpoint_id)
    assert call(world, IWebhookDeliveries, "recover", owner, endpoint_id, started) == 3
    received = sorted((p["clinic_id"], p["seq"]) for p in (verified(secret, r) for r in receiver.requests))
    assert received == sorted([(str(connected.clinic_id), 1), (str(second_clinic), 1), (str(second_clinic), 2)])


def test_rotation_signs_with_both_secrets_during_the_overlap_then_only_the_new_one(world, engine, receiver):
    clinic_id = world.clinic()
    owner = Owner.clinic(clinic_id)
    added, old_secret = call(world, IWebhookEndpoints, "add", owner, receiver.url)
    endpoint_id = added["endpoint_id"]
    assert refusal(world, IWebhookEndpoints, "rotate_secret", owner, endpoint_id,
                   overlap_seconds=8 * 86400).code == "invalid_overlap"
    rotated, new_secret = call(world, IWebhookEndpoints, "rotate_secret", owner, endpoint_id,
                               overlap_seconds=3600)
    expires = datetime.datetime.fromisoformat(rotated["previous_secret_expires_at"])
    assert datetime.timedelta(minutes=59) < expires - datetime.datetime.now(datetime.UTC) <= datetime.timedelta(hours=1)
    assert call(world, IWebhookEndpoints, "reveal_secret", owner, endpoint_id) == new_secret != old_secret

    emit_events(world, clinic_id)
    signed_by(receiver.requests[-1], [new_secret, old_secret])

    expire_previous_secret(engine, uuid.UUID(endpoint_id))
    sweep_deliveries()
    with engine.connect() as connection:
        assert connection.execute(select(WebhookEndpoint.previous_secret_sealed).where(
            WebhookEndpoint.id == uuid.UUID(endpoint_id))).scalar() is None, "an expired previous secret is not kept"
    emit_events(world, clinic_id)
    signed_by(receiver.requests[-1], [new_secret], not_by=[old_secret])

    _, newest = call(world, IWebhookEndpoints, "rotate_secret", owner, endpoint_id, overlap_seconds=0)
    emit_events(world, clinic_id)
    signed_by(receiver.requests[-1], [newest], not_by=[new_secret])


def test_disable_stops_deliveries_and_enable_resumes_them(world, engine, make_receiver):
    receiver = make_receiver(answers=[500], default=200)
    clinic_id = world.clinic()
    owner = Owner.clinic(clinic_id)
    added, secret = call(world, IWebhookEndpoints, "add", owner, receiver.url)
    endpoint_id = added["endpoint_id"]
    [pending] = emit_events(world, clinic_id)
    disabled = call(world, IWebhookEndpoints, "disable", owner, endpoint_id)
    assert (disabled["status"], disabled["disabled_reason"]) == ("disabled", "disabled by its owner")
    emit_events(world, clinic_id)
    make_due(engine, uuid.UUID(endpoint_id))
    sweep_deliveries()
    assert len(receiver.requests) == 1, "neither the pending delivery nor the new event is sent"

    tested = call(world, IWebhookTester, "send_test", owner, endpoint_id)
    assert tested["delivered"] and tested["endpoint_status"] == "disabled", \
        "a good test event does not undo its owner's choice"
    assert len(receiver.requests) == 2

    enabled = call(world, IWebhookEndpoints, "enable", owner, endpoint_id)
    assert (enabled["status"], enabled["disabled_reason"]) == ("enabled", None)
    assert [verified(secret, r)["id"] for r in receiver.requests[2:]] == [str(pending.id)], \
        "the pending delivery is sent at once"
    [later] = emit_events(world, clinic_id)
    assert verified(secret, receiver.requests[-1])["id"] == str(later.id)


def test_delete_drops_its_secret_and_pending_deliveries(world, engine, registry, make_receiver):
    receiver = make_receiver(default=500)
    clinic_id = world.clinic()
    owner = Owner.clinic(clinic_id)
    keep, _ = call(world, IWebhookEndpoints, "add", owner, receiver.url, event_types=["listing.freshness.changed"])
    added, _ = call(world, IWebhookEndpoints, "add", owner, receiver.url)
    emit_events(world, clinic_id, 2)
    logged = call(world, IWebhookDeliveries, "log", owner, added["endpoint_id"]).deliveries
    assert [d["status"] for d in logged] == ["pending", "pending"]
    [pending] = [d for d in logged if d["attempt_log"]]
    endpoint_id = uuid.UUID(added["endpoint_id"])
    assert rows_of(engine, endpoint_id) == (1, 2, 1), "the second delivery waits behind the failing endpoint"
    call(world, IWebhookEndpoints, "delete", owner, added["endpoint_id"])
    assert rows_of(engine, endpoint_id) == (0, 0, 0)
    assert call(world, IWebhookEndpoints, "list", owner) == [call(world, IWebhookEndpoints, "get", owner,
                                                                   keep["endpoint_id"])]
    assert delivery.attempt(registry, uuid.UUID(pending["delivery_id"])).status == "skipped", \
        "a task still queued for it finds nothing to send"
    with pytest.raises(EndpointNotFound):
        call(world, IWebhookEndpoints, "get", owner, added["endpoint_id"])


def test_the_consumer_sends_what_recover_queues(world, engine, make_receiver, queue_on_disk):
    """Through a real Huey consumer process: the service queues its deliveries after commit."""
    from tests.common.consumer import consumer_config, start_consumer, stop_consumer, wait_for

    ini, env = consumer_config(queue_on_disk, engine)
    receiver = make_receiver()
    clinic_id = world.clinic()
    owner = Owner.clinic(clinic_id)
    added, secret = call(world, IWebhookEndpoints, "add", owner, receiver.url)
    started = datetime.datetime.now(datetime.UTC)
    call(world, IWebhookEndpoints, "disable", owner, added["endpoint_id"])
    emit_events(world, clinic_id, 2)
    call(world, IWebhookEndpoints, "enable", owner, added["endpoint_id"])
    assert call(world, IWebhookDeliveries, "recover", owner, added["endpoint_id"], started) == 2
    consumer = start_consumer(ini, env)
    try:
        assert wait_for(lambda: len(receiver.requests) >= 2, 45)
    finally:
        stop_consumer(consumer)
    assert sorted(json.loads(r[2])["seq"] for r in receiver.requests) == [1, 2]
    for request in receiver.requests:
        verified(secret, request)
