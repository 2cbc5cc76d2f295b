"""The webhook operator commands: outputs, replay, and every refusal (exit 2, nothing changed)."""

import datetime
import json
import uuid
from pathlib import Path

import pytest
from sqlalchemy import func, select
from standardwebhooks.webhooks import Webhook

from clinicrecords.events.models import WebhookDelivery, WebhookEndpoint
from tests.common.cli import admin, ok, refused
from tests.conftest import ROOT, TESTING_INI
from tests.events.support import emit_events


@pytest.fixture
def counts(engine):
    def count():
        with engine.connect() as connection:
            return tuple(connection.execute(select(func.count()).select_from(model)).scalar()
                         for model in (WebhookEndpoint, WebhookDelivery))
    return count


def test_add_list_deliveries_delete(world, receiver, engine):
    workspace_id, _ = world.workspace()
    clinic_id = world.clinic()
    status, added, _ = admin("webhook", "add", "--workspace", str(workspace_id), "--mode", "test", "--url",
                             receiver.url, "--types", "inventory.item.created,inventory.item.updated")
    assert status == 0 and set(added) == {"endpoint_id", "secret"} and added["secret"].startswith("whsec_")
    status, clinic_hook, _ = admin("webhook", "add", "--clinic", str(clinic_id), "--url", receiver.url)
    status, listed, _ = admin("webhook", "list")
    mine = {e["endpoint_id"]: e for e in listed["endpoints"]}
    entry = mine[added["endpoint_id"]]
    assert entry["owner"] == {"type": "workspace", "id": str(workspace_id)} and entry["mode"] == "test"
    assert entry["types"] == ["inventory.item.created", "inventory.item.updated"] and entry["status"] == "enabled"
    assert "secret" not in json.dumps(entry).replace("previous_secret_expires_at", "")
    assert mine[clinic_hook["endpoint_id"]]["mode"] == "live"

    [event] = emit_events(world, clinic_id)
    status, result, _ = admin("webhook", "deliveries", clinic_hook["endpoint_id"])
    [row] = result["deliveries"]
    assert (row["webhook_id"], row["status"], row["attempts"], row["seq"]) == (str(event.id), "delivered", 1, 1)

    assert admin("webhook", "delete", clinic_hook["endpoint_id"]) == (
        0, {"endpoint_id": clinic_hook["endpoint_id"], "deleted": True}, "")
    assert emit_events(world, clinic_id) == [None], "with its only endpoint gone the clinic records nothing"
    with engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(WebhookDelivery).where(
            WebhookDelivery.endpoint_id == uuid.UUID(clinic_hook["endpoint_id"]))).scalar() == 0


def test_replay_one_event_and_everything_after_a_seq(world, make_receiver):
    receiver = make_receiver()
    clinic_id = world.clinic()
    endpoint_id, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
    events = emit_events(world, clinic_id, 4)
    assert len(receiver.requests) == 4
    status, result, _ = admin("webhook", "replay", str(endpoint_id), "--event", str(events[1].id))
    assert (status, result) == (0, {"endpoint_id": str(endpoint_id), "queued": 1})
    replayed = receiver.requests[-1]
    assert replayed[1]["webhook-id"] == str(events[1].id)
    assert Webhook(secret).verify(replayed[2], replayed[1])["seq"] == 2
    status, result, _ = admin("webhook", "replay", str(endpoint_id), "--after-seq", "2", "--clinic", str(clinic_id))
    assert result["queued"] == 2
    assert [json.loads(r[2])["seq"] for r in receiver.requests[-2:]] == [3, 4]


def test_replay_for_an_organization_endpoint_finds_the_clinic_from_earlier_deliveries(world, receiver):
    connected = world.connected()
    endpoint_id, _ = world.webhook(workspace_id=connected.workspace_id, mode="live", url=receiver.url)
    [event] = emit_events(world, connected.clinic_id)
    status, result, _ = admin("webhook", "replay", str(endpoint_id), "--event", str(event.id))
    assert result["queued"] == 1 and len(receiver.requests) == 2


def test_replay_refusals(world, counts, make_receiver):
    receiver = make_receiver()
    connected = world.connected(scopes={"patients:read"})
    org_endpoint, _ = world.webhook(workspace_id=connected.workspace_id, mode="live", url=receiver.url)
    clinic_endpoint, _ = world.webhook(clinic_id=connected.clinic_id, url=receiver.url)
    [event] = emit_events(world, connected.clinic_id)
    stranger = world.clinic()
    before = counts()
    refused("webhook", "replay", str(uuid.uuid4()), "--event", str(event.id))
    refused("webhook", "replay", str(clinic_endpoint), "--event", str(uuid.uuid4()))
    refused("webhook", "replay", str(clinic_endpoint), "--after-seq", "0")
    refused("webhook", "replay", str(clinic_endpoint), "--after-seq", "-1", "--clinic", str(connected.clinic_id))
    refused("webhook", "replay", str(clinic_endpoint), "--after-seq", "0", "--clinic", str(stranger))
    refused("webhook", "replay", str(clinic_endpoint), "--event", str(event.id), "--after-seq", "0")
    assert "give --clinic" in refused("webhook", "replay", str(org_endpoint), "--event", str(event.id))
    assert "not entitled" in refused("webhook", "replay", str(org_endpoint), "--event", str(event.id),
                                     "--clinic", str(connected.clinic_id))
    assert counts() == before


@pytest.mark.parametrize("argv", [
    ("webhook", "add", "--url", "http://127.0.0.1:9/x"),
    ("webhook", "add", "--workspace", "WORKSPACE", "--url", "http://127.0.0.1:9/x"),
    ("webhook", "add", "--workspace", "WORKSPACE", "--mode", "staging", "--url", "http://127.0.0.1:9/x"),
    ("webhook", "add", "--workspace", str(uuid.uuid4()), "--mode", "live", "--url", "http://127.0.0.1:9/x"),
    ("webhook", "add", "--clinic", "CLINIC", "--mode", "test", "--url", "http://127.0.0.1:9/x"),
    ("webhook", "add", "--clinic", "SANDBOX", "--url", "http://127.0.0.1:9/x"),
    ("webhook", "add", "--clinic", "CLINIC", "--workspace", "WORKSPACE", "--url", "http://127.0.0.1:9/x"),
    ("webhook", "add", "--clinic", "CLINIC", "--url", "ftp://127.0.0.1/x"),
    ("webhook", "add", "--clinic", "CLINIC", "--url", "http://user:pw@127.0.0.1/x"),
    ("webhook", "add", "--clinic", "CLINIC", "--url", "http://no-such-host.invalid/x"),
    ("webhook", "add", "--clinic", "CLINIC", "--url", "http://127.0.0.1:9/x", "--types", "patient.updated"),
    ("webhook", "add", "--clinic", "CLINIC", "--url", "http://127.0.0.1:9/x", "--types", ","),
    ("webhook", "add", "--clinic", "CLINIC", "--url", "http://127.0.0.1:9/" + "x" * 2000),
    ("webhook", "test", str(uuid.uuid4())),
    ("webhook", "test", "nope"),
    ("webhook", "rotate-secret", str(uuid.uuid4())),
    ("webhook", "delete", str(uuid.uuid4())),
    ("webhook", "deliveries", str(uuid.uuid4())),
    ("webhook", "deliveries", "ENDPOINT", "--limit", "0"),
    ("webhook", "deliveries", "ENDPOINT", "--limit", "1001"),
    ("webhook", "deliveries", "ENDPOINT", "--status", "lost"),
    ("webhook", "deliveries", "ENDPOINT", "--starting-after", str(uuid.uuid4())),
    ("webhook", "add", "--clinic", "CLINIC", "--url", "http://203.0.113.7/x"),
    ("webhook", "rotate-secret", "ENDPOINT", "--overlap-hours", "169"),
    ("webhook", "rotate-secret", "ENDPOINT", "--overlap-hours", "soon"),
    ("webhook", "disable", str(uuid.uuid4())),
    ("webhook", "enable", str(uuid.uuid4())),
    ("webhook", "replay", "ENDPOINT", "--delivery", str(uuid.uuid4())),
    ("webhook", "replay", "ENDPOINT", "--since", "yesterday"),
    ("webhook", "replay", "ENDPOINT", "--since", "2020-01-01T00:00:00Z"),
    ("webhook", "replay", "ENDPOINT", "--since", "2020-01-01T00:00:00Z", "--delivery", str(uuid.uuid4())),
])
def test_bad_input_is_refused_and_changes_nothing(world, counts, argv):
    workspace_id, sandbox_id = world.workspace()
    clinic_id = world.clinic()
    endpoint_id, _ = world.webhook(clinic_id=clinic_id)
    names = {"WORKSPACE": workspace_id, "CLINIC": clinic_id, "SANDBOX": sandbox_id, "ENDPOINT": endpoint_id}
    before = counts()
    refused(*[str(names.get(arg, arg)) for arg in argv])
    assert counts() == before


def test_production_settings_refuse_private_and_plain_http_addresses(world, tmp_path, counts):
    ini = tmp_path / "production-like.ini"
    text = Path(TESTING_INI).read_text().replace("%(here)s", str(ROOT))
    ini.write_text(text.replace("webhooks.allow_private_addresses = true", "webhooks.allow_private_addresses = false")
                   .replace("webhooks.require_https = false", "webhooks.require_https = true"))
    clinic_id = world.clinic()
    before = counts()
    assert "private" in refused("webhook", "add", "--clinic", str(clinic_id), "--url", "https://127.0.0.1/x",
                                ini=str(ini))
    assert "private" in refused("webhook", "add", "--clinic", str(clinic_id), "--url",
                                "https://169.254.169.254/latest", ini=str(ini))
    assert "https" in refused("webhook", "add", "--clinic", str(clinic_id), "--url", "http://203.0.113.7/x",
                              ini=str(ini))
    for address in ("64:ff9b::7f00:1", "2002:a9fe:a9fe::1", "::7f00:1"):  # IPv4 inside IPv6 (decision 0056)
        assert "private" in refused("webhook", "add", "--clinic", str(clinic_id), "--url", f"https://[{address}]/x",
                                    ini=str(ini))
    assert counts() == before


def test_test_disable_enable_resend_recover_and_the_paged_log(world, engine, make_receiver):
    receiver = make_receiver(default=200, body=b"thanks")
    clinic_id = world.clinic()
    endpoint_id, secret = world.webhook(clinic_id=clinic_id, url=receiver.url)
    endpoint = str(endpoint_id)
    tested = ok("webhook", "test", endpoint)
    assert (tested["delivered"], tested["status_code"], tested["response_body"]) == (True, 200, "thanks")
    assert tested["duration_ms"] >= 0 and tested["endpoint_status"] == "enabled"

    disabled = ok("webhook", "disable", endpoint)
    assert (disabled["status"], disabled["disabled_reason"]) == ("disabled", "disabled by its owner")
    emit_events(world, clinic_id, 1)
    assert len(receiver.requests) == 1, "nothing is sent to a disabled endpoint"
    since = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)).isoformat()
    assert "disabled" in refused("webhook", "replay", endpoint, "--since", since)
    assert ok("webhook", "enable", endpoint)["status"] == "enabled"
    assert ok("webhook", "replay", endpoint, "--since", since) == {"endpoint_id": endpoint, "queued": 1}
    assert json.loads(receiver.requests[-1][2])["seq"] == 1

    first = ok("webhook", "deliveries", endpoint, "--limit", "1")
    assert first["has_more"] is True and len(first["deliveries"]) == 1
    [newest] = first["deliveries"]
    [attempt] = newest["attempt_log"]
    assert (attempt["status_code"], attempt["response_body"]) == (200, "thanks")
    rest = ok("webhook", "deliveries", endpoint, "--starting-after", first["next_cursor"])
    assert rest["has_more"] is False and [d["type"] for d in rest["deliveries"]] == ["webhook.ping"]

    resent = ok("webhook", "replay", endpoint, "--delivery", newest["delivery_id"])
    assert resent["queued"] == 1 and resent["webhook_id"] == newest["webhook_id"]
    assert Webhook(secret).verify(receiver.requests[-1][2], receiver.requests[-1][1])["seq"] == 1

    rotated = ok("webhook", "rotate-secret", endpoint, "--overlap-hours", "0")
    assert rotated["previous_secret_expires_at"] is None
    assert [e["endpoint_id"] for e in ok("webhook", "list", "--clinic", clinic_id, "--mode", "live")["endpoints"]] \
        == [endpoint]
    assert ok("webhook", "list", "--clinic", clinic_id, "--mode", "test")["endpoints"] == []
