"""The domain page: entering the domain, the record to publish, the state of the checks, "Check now", and
changing the domain after a confirmation. Lookups go to a real authoritative DNS server on 127.0.0.1."""

import datetime
import uuid

import pytest
from sqlalchemy import select

from clinicrecords.onboarding.models import WorkspaceDomain
from tests.onboarding.dns_server import authoritative_server, silent_server
from tests.onboarding.helpers import domain_service, unique_domain
from tests.portal.helpers import error_summary, joined_as_developer, submit, with_workspace

DAY = datetime.timedelta(days=1)


@pytest.fixture
def dns():
    with authoritative_server() as (zone, address):
        zone.address = address
        yield zone


@pytest.fixture
def dns_app(make_app, dns):
    """The application asking the test's DNS server; its tests press "Check now" several times a minute."""
    return make_app(**{"verification.nameservers": dns.address, "portal.domain_check_interval_seconds": "0"})


def _page(client, workspace_id, suffix=""):
    return client.get(f"/portal/workspaces/{workspace_id}/domain{suffix}")


def _record(page):
    return page.html.find(id="txt-host").get_text(), page.html.find(id="txt-value").get_text()


def _entered(client, workspace_id, domain=None):
    """The owner enters a domain; returns the record's (host, value) as the page shows them."""
    entered = submit(_page(client, workspace_id), "domain-form", domain=domain or unique_domain(), status=303)
    return _record(client.get(entered.location))


def _text(page, element_id):
    return page.html.find(id=element_id).get_text(" ", strip=True)


def _words(page):
    return " ".join(page.html.get_text().split())


def _stored(engine, workspace_id):
    with engine.connect() as connection:
        return connection.execute(select(WorkspaceDomain).where(
            WorkspaceDomain.workspace_id == uuid.UUID(workspace_id))).one_or_none()


def test_the_owner_enters_a_domain_and_sees_the_record_and_the_schedule(app, engine):
    client, workspace_id = with_workspace(app)
    page = _page(client, workspace_id)
    assert "domain-form" in page.forms and "How checks work" in page.text
    bad = submit(page, "domain-form", domain="https://acme.example/path", status=400)
    assert error_summary(bad) == [
        "'https://acme.example/path' is not a domain name: give the name only, without scheme, port or path"]
    assert bad.html.find(id="domain")["value"] == "https://acme.example/path"
    assert _stored(engine, workspace_id) is None
    domain = unique_domain()
    shown = client.get(submit(page, "domain-form", domain=domain.upper(), status=303).location)
    assert "Domain saved" in shown.text
    host, value = _record(shown)
    assert host == f"_clinicrecords-verify.{domain}" and value.startswith("clinicrecords-verify=")
    assert _text(shown, "txt-type") == "TXT" and _text(shown, "state") == "pending"
    assert _text(shown, "last-check") == "not checked yet"
    row = _stored(engine, workspace_id)
    assert (row.domain, row.txt_value) == (domain, value)
    assert _text(shown, "next-check") == row.next_check_at.strftime("%Y-%m-%d %H:%M UTC")
    until = (row.schedule_started_at + datetime.timedelta(days=14)).strftime("%Y-%m-%d %H:%M UTC")
    assert _text(shown, "checks-until") == f"automatically until {until}, then pause until you check now"
    words = _words(shown)
    assert "every 5 minutes for the first hour, hourly until 24 hours, then every 4 hours until 14 days" \
        in words
    assert "missing at 3 daily checks in a row, verification lapses" in words
    activity = client.get(f"/portal/workspaces/{workspace_id}/activity").text
    assert f"Set the domain to {domain}" in activity


def test_check_now_finds_the_published_record_and_verifies(dns_app, dns, engine):
    client, workspace_id = with_workspace(dns_app)
    host, value = _entered(client, workspace_id)
    absent = client.get(submit(_page(client, workspace_id), "check", status=303).location)
    assert "Checked just now" in absent.text and _text(absent, "state") == "pending"
    assert "The host does not exist in DNS yet" in _text(absent, "last-check")
    dns.publish(host, value)
    found = client.get(submit(_page(client, workspace_id), "check", status=303).location)
    assert _text(found, "state") == "verified" and "The record was found" in _text(found, "checked")
    row = _stored(engine, workspace_id)
    assert row.state == "verified" and _text(found, "checks-until") == "daily, while the domain is verified"
    assert _text(found, "next-check") == row.next_check_at.strftime("%Y-%m-%d %H:%M UTC")
    overview = client.get(f"/portal/workspaces/{workspace_id}")
    assert overview.html.find("li", string="The workspace's domain is verified")["class"] == ["ok"]
    activity = client.get(f"/portal/workspaces/{workspace_id}/activity").text
    assert activity.count("Checked the domain") == 2


def test_a_lapsed_domain_says_why_and_a_paused_one_waits_for_check_now(dns_app, dns, world):
    client, workspace_id = with_workspace(dns_app)
    host, value = _entered(client, workspace_id)
    dns.publish(host, value)
    checked = submit(_page(client, workspace_id), "check", status=303)
    now = datetime.datetime.now(datetime.UTC)
    dns.remove(host)
    with domain_service(world, dns.address) as service:
        for day in (1, 2, 3):
            service.check_if_due(uuid.UUID(workspace_id), now=now + day * DAY + datetime.timedelta(minutes=1))
    lapsed = client.get(checked.location.split("?")[0])
    assert _text(lapsed, "state") == "lapsed"
    assert f"The TXT record {host} was not found at 3 daily checks in a row" in _text(lapsed, "lapse-reason")
    with domain_service(world, dns.address) as service:  # 14 days of the pending schedule pass unanswered
        service.check_if_due(uuid.UUID(workspace_id), now=now + 18 * DAY)
    paused = client.get(checked.location.split("?")[0])
    assert _text(paused, "next-check") == "paused until you check now"
    assert "press “Check now” to start them again" in _text(paused, "checks-until")


def test_changing_the_domain_asks_for_confirmation_then_issues_a_new_value(app, engine):
    client, workspace_id = with_workspace(app)
    first = unique_domain()
    _, first_value = _entered(client, workspace_id, first)
    change = _page(client, workspace_id, "/change")
    assert error_summary(submit(change, "change-domain", domain="localhost", status=400)) == [
        "'localhost' is a single label; give a registered domain such as example.com"]
    same = submit(change, "change-domain", domain=first.upper(), status=303)  # the same: nothing to confirm
    assert _stored(engine, workspace_id).txt_value == first_value
    second = unique_domain()
    confirm = submit(change, "change-domain", domain=second, status=303).follow()
    assert f"Change the domain to {second}?" in _words(confirm) and "checks restart" in _words(confirm)
    assert _stored(engine, workspace_id).domain == first  # nothing changed before the confirmation
    shown = client.get(submit(confirm, "change-domain", status=303).location)
    host, value = _record(shown)
    assert host == f"_clinicrecords-verify.{second}" and value != first_value
    assert _text(shown, "state") == "pending"
    assert client.get(same.location).status_int == 200
    assert client.get(f"/portal/workspaces/{workspace_id}/activity").text.count("Set the domain to") == 2


def test_forged_and_foreign_requests_change_nothing(app, engine):
    client, workspace_id = with_workspace(app)
    client.post(f"/portal/workspaces/{workspace_id}/domain", {"domain": unique_domain()}, status=403)
    assert _stored(engine, workspace_id) is None
    other, other_id = with_workspace(app, name="Other Org")
    token = client.get("/portal/").html.find("input", attrs={"name": "csrf_token"})["value"]
    client.get(f"/portal/workspaces/{other_id}/domain", status=404)
    for suffix in ("", "/change", "/check"):
        client.post(f"/portal/workspaces/{other_id}/domain{suffix}",
                    {"csrf_token": token, "domain": unique_domain(), "confirm": "yes"}, status=404)
    assert _stored(engine, other_id) is None


def test_check_now_before_a_domain_is_entered_says_so(app):
    client, workspace_id = with_workspace(app)
    token = _page(client, workspace_id).html.find("input", attrs={"name": "csrf_token"})["value"]
    answer = client.post(f"/portal/workspaces/{workspace_id}/domain/check", {"csrf_token": token}, status=400)
    assert error_summary(answer) == ["Enter your domain first: there is nothing to check yet"]


def test_only_an_owner_sets_the_domain_a_developer_sees_it_and_checks(app, engine):
    owner, workspace_id = with_workspace(app)
    developer = joined_as_developer(app, owner, workspace_id)
    page = _page(developer, workspace_id)
    assert "domain-form" not in page.forms and "Only an owner" in page.text
    token = page.html.find("input", attrs={"name": "csrf_token"})["value"]
    for suffix in ("", "/change"):
        fields = {"csrf_token": token, "domain": unique_domain(), "confirm": "yes"}
        answer = developer.post(f"/portal/workspaces/{workspace_id}/domain{suffix}", fields, status=403)
        assert "Only an owner" in answer.text
    developer.get(f"/portal/workspaces/{workspace_id}/domain/change", status=403)
    assert _stored(engine, workspace_id) is None
    submit(_page(owner, workspace_id), "domain-form", domain=unique_domain(), status=303)
    page = _page(developer, workspace_id)
    assert "Change the domain" not in page.text
    submit(page, "check", status=303)  # any member may look the record up


def test_a_second_check_within_the_interval_is_refused_with_when_to_try_again(make_app, dns):
    app = make_app(**{"verification.nameservers": dns.address})  # the default: one check per 30 seconds
    client, workspace_id = with_workspace(app)
    host, _ = _entered(client, workspace_id)
    submit(_page(client, workspace_id), "check", status=303)
    refused = submit(_page(client, workspace_id), "check", status=429)
    [message] = error_summary(refused)
    seconds = int(message.removeprefix("The domain was checked moments ago: check again in ").removesuffix(
        " seconds"))
    assert 1 <= seconds <= 30 and 1 <= int(refused.headers["Retry-After"]) <= 30
    assert refused.html.find(id="check-error") is not None
    assert dns.queries[host] == 1
    assert client.get(f"/portal/workspaces/{workspace_id}/activity").text.count("Checked the domain") == 1


def test_a_dns_timeout_is_the_pages_message(make_app):
    with silent_server() as silent:
        app = make_app(**{"verification.nameservers": silent, "verification.dns_timeout_seconds": "0.5"})
        client, workspace_id = with_workspace(app)
        _entered(client, workspace_id)
        checked = client.get(submit(_page(client, workspace_id), "check", status=303).location)
    assert "DNS did not answer in time (this never counts as absent)" in _text(checked, "checked")
    assert _text(checked, "state") == "pending"
