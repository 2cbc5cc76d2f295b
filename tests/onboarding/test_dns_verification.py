"""Domain verification end to end: the service against a real authoritative DNS server on 127.0.0.1."""

import datetime

import pytest

from clinicrecords.onboarding import schedule
from tests.access.helpers import bearer
from tests.onboarding.dns_server import authoritative_server, silent_server
from tests.onboarding.helpers import domain_service, unique_domain, workspace_verified

MIN, DAY = datetime.timedelta(minutes=1), datetime.timedelta(days=1)


def _now():
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0)


@pytest.fixture
def dns():
    with authoritative_server() as (zone, address):
        zone.address = address
        yield zone


def _claim(world, dns, now, domain=None):
    workspace_id, _ = world.workspace(verified=False)
    with domain_service(world, dns.address) as service:
        status = service.set_domain(workspace_id, domain or unique_domain(), now=now)
    return workspace_id, status


def _check(world, dns, workspace_id, now, scheduled=True):
    with domain_service(world, dns.address) as service:
        if scheduled:
            return service.check_if_due(workspace_id, now=now)
        return service.check_now(workspace_id, now=now)


def test_setting_a_domain_gives_the_record_and_the_first_check(world, dns):
    now = _now()
    workspace_id, status = _claim(world, dns, now, domain="Bücher-" + unique_domain())
    assert status.domain.startswith("xn--")
    assert status.domain_unicode.startswith("bücher-")
    assert status.txt_host == "_clinicrecords-verify." + status.domain
    assert status.txt_value.startswith("clinicrecords-verify=")
    assert (status.state, status.next_check_at, status.last_check_at) == ("pending", now + 5 * MIN, None)
    assert not workspace_verified(world, workspace_id)


def test_a_published_record_verifies_the_workspace_and_opens_live_keys(world, dns, testapp):
    now = _now()
    connected = world.connected(verified=False)
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers, status=403)
    with domain_service(world, dns.address) as service:
        status = service.set_domain(connected.workspace_id, unique_domain(), now=now)
    assert _check(world, dns, connected.workspace_id, now + 4 * MIN) is None  # not due yet
    dns.publish(status.txt_host, "v=spf1 -all", status.txt_value)  # other TXT records may share the name
    checked = _check(world, dns, connected.workspace_id, now + 5 * MIN)
    assert (checked.state, checked.last_result) == ("verified", "found")
    assert checked.verified_at == checked.last_check_at == now + 5 * MIN
    assert checked.next_check_at == now + 5 * MIN + DAY
    assert workspace_verified(world, connected.workspace_id)
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers, status=200)


def test_a_value_split_into_several_strings_is_read_whole(world, dns):
    now = _now()
    workspace_id, status = _claim(world, dns, now)
    dns.publish(status.txt_host, status.txt_value + "x" * 300)  # 2 strings; and not the value
    assert _check(world, dns, workspace_id, now + 5 * MIN).last_result == schedule.WRONG_VALUE
    dns.publish(status.txt_host, status.txt_value)
    assert _check(world, dns, workspace_id, now + 10 * MIN).state == "verified"


@pytest.mark.parametrize("arrange, result", [
    (lambda dns, status: dns.publish(status.txt_host, "clinicrecords-verify=" + "0" * 48),
     schedule.WRONG_VALUE),
    (lambda dns, status: None, schedule.NXDOMAIN),
    (lambda dns, status: dns.a.update({status.txt_host: "192.0.2.1"}), schedule.NO_TXT),
    (lambda dns, status: dns.servfail.add(status.txt_host), schedule.SERVFAIL),
    (lambda dns, status: dns.refused.add(status.txt_host), schedule.DNS_ERROR),
])
def test_what_a_pending_check_finds_is_stored_and_the_schedule_goes_on(world, dns, arrange, result):
    now = _now()
    workspace_id, status = _claim(world, dns, now)
    arrange(dns, status)
    checked = _check(world, dns, workspace_id, now + 5 * MIN)
    assert (checked.state, checked.last_result, checked.next_check_at) == ("pending", result, now + 10 * MIN)
    assert not workspace_verified(world, workspace_id)


def test_a_value_issued_for_another_workspace_does_not_verify(world, dns):
    now = _now()
    domain = unique_domain()
    first, first_status = _claim(world, dns, now, domain=domain)
    second, second_status = _claim(world, dns, now, domain=domain)
    assert first_status.txt_value != second_status.txt_value
    dns.publish(first_status.txt_host, first_status.txt_value)
    assert _check(world, dns, first, now + 5 * MIN).state == "verified"
    assert _check(world, dns, second, now + 5 * MIN).last_result == schedule.WRONG_VALUE


def _verified(world, dns, now):
    workspace_id, status = _claim(world, dns, now)
    dns.publish(status.txt_host, status.txt_value)
    assert _check(world, dns, workspace_id, now + 5 * MIN).state == "verified"
    return workspace_id, status, now + 5 * MIN


def test_three_absent_daily_checks_in_a_row_lapse_the_verification(world, dns, testapp):
    workspace_id, status, verified_at = _verified(world, dns, _now())
    clinic_id = world.clinic()
    world.grant(workspace_id, clinic_id)
    key = world.key(workspace_id=workspace_id, mode="live")
    dns.remove(status.txt_host)
    day1 = _check(world, dns, workspace_id, verified_at + DAY)
    assert (day1.state, day1.absent_checks, day1.next_check_at) == ("verified", 1, verified_at + 2 * DAY)
    day2 = _check(world, dns, workspace_id, verified_at + 2 * DAY)
    assert (day2.state, day2.absent_checks) == ("verified", 2)
    testapp.get(f"/v1/clinics/{clinic_id}/patients", headers=bearer(key), status=200)
    day3 = _check(world, dns, workspace_id, verified_at + 3 * DAY)
    assert (day3.state, day3.lapsed_at) == ("lapsed", verified_at + 3 * DAY)
    assert status.txt_host in day3.lapse_reason and "3 daily checks in a row" in day3.lapse_reason
    assert not workspace_verified(world, workspace_id)
    answer = testapp.get(f"/v1/clinics/{clinic_id}/patients", headers=bearer(key), status=403)
    assert answer.json["code"] == "not_verified"
    # A lapsed domain is watched on the pending schedule, so a restored record is noticed within minutes.
    assert day3.next_check_at == verified_at + 3 * DAY + 5 * MIN
    dns.publish(status.txt_host, status.txt_value)
    back = _check(world, dns, workspace_id, verified_at + 3 * DAY + 5 * MIN)
    assert (back.state, back.lapse_reason, back.absent_checks) == ("verified", None, 0)
    testapp.get(f"/v1/clinics/{clinic_id}/patients", headers=bearer(key), status=200)


def _absent_two_days(world, dns):
    """A verified domain whose record has been missing at 2 daily checks: one more lapses it."""
    workspace_id, status, verified_at = _verified(world, dns, _now())
    dns.remove(status.txt_host)
    _check(world, dns, workspace_id, verified_at + DAY)
    assert _check(world, dns, workspace_id, verified_at + 2 * DAY).absent_checks == 2
    return workspace_id, status, verified_at


def test_a_found_record_between_absent_checks_restarts_the_count(world, dns):
    workspace_id, status, verified_at = _absent_two_days(world, dns)
    dns.publish(status.txt_host, status.txt_value)
    assert _check(world, dns, workspace_id, verified_at + 3 * DAY).absent_checks == 0
    dns.remove(status.txt_host)
    assert _check(world, dns, workspace_id, verified_at + 4 * DAY).state == "verified"


def test_servfail_never_counts_as_absent(world, dns):
    workspace_id, status, verified_at = _verified(world, dns, _now())
    dns.remove(status.txt_host)
    dns.servfail.add(status.txt_host)
    for day in range(1, 6):
        checked = _check(world, dns, workspace_id, verified_at + day * DAY)
        assert (checked.state, checked.last_result, checked.absent_checks) == ("verified", "servfail", 0)
    assert workspace_verified(world, workspace_id)


def test_a_timeout_never_counts_as_absent(world, dns):
    workspace_id, status, verified_at = _absent_two_days(world, dns)
    with silent_server() as silent:
        with domain_service(world, silent, timeout=0.3) as service:
            checked = service.check_if_due(workspace_id, now=verified_at + 3 * DAY)
    assert (checked.state, checked.last_result, checked.absent_checks) == ("verified", "timeout", 2)
    assert workspace_verified(world, workspace_id)
    assert _check(world, dns, workspace_id, verified_at + 4 * DAY).state == "lapsed"


def test_check_now_checks_at_once_and_restarts_the_schedule(world, dns):
    now = _now()
    workspace_id, status = _claim(world, dns, now)
    # Past 14 days the automatic checks have stopped.
    paused_at = now + 14 * DAY
    assert _check(world, dns, workspace_id, paused_at).next_check_at is None
    with domain_service(world, dns.address) as service:
        assert service.due_workspace_ids(now + 100 * DAY, limit=10_000).count(workspace_id) == 0
    pressed = now + 20 * DAY
    checked = _check(world, dns, workspace_id, pressed, scheduled=False)
    assert (checked.state, checked.last_check_at) == ("pending", pressed)
    assert checked.next_check_at == pressed + 5 * MIN
    dns.publish(status.txt_host, status.txt_value)
    assert _check(world, dns, workspace_id, pressed + 1 * MIN, scheduled=False).state == "verified"


def test_check_now_on_a_verified_domain_keeps_the_daily_schedule_and_never_hastens_a_lapse(world, dns):
    workspace_id, status, verified_at = _verified(world, dns, _now())
    dns.remove(status.txt_host)
    for minutes in (1, 2, 3, 4):
        checked = _check(world, dns, workspace_id, verified_at + minutes * MIN, scheduled=False)
    assert (checked.state, checked.absent_checks, checked.next_check_at) == ("verified", 0, verified_at + DAY)


def test_changing_the_domain_issues_a_new_value_and_restarts_checks(world, dns):
    workspace_id, status, verified_at = _verified(world, dns, _now())
    changed_at = verified_at + 2 * DAY
    with domain_service(world, dns.address) as service:
        again = service.set_domain(workspace_id, status.domain.upper() + ".", now=changed_at)
        assert again == service.status(workspace_id)  # the same domain: nothing changes
        assert again.txt_value == status.txt_value and again.state == "verified"
        changed = service.set_domain(workspace_id, unique_domain(), now=changed_at)
    assert changed.txt_value != status.txt_value
    assert (changed.state, changed.next_check_at, changed.last_result, changed.verified_at) == (
        "pending", changed_at + 5 * MIN, None, None)
    # Verification proved the old domain, not the new one.
    assert not workspace_verified(world, workspace_id)
    dns.publish(changed.txt_host, status.txt_value)  # the old value does not verify the new domain
    assert _check(world, dns, workspace_id, changed_at + 5 * MIN).last_result == schedule.WRONG_VALUE
    dns.publish(changed.txt_host, changed.txt_value)
    assert _check(world, dns, workspace_id, changed_at + 10 * MIN).state == "verified"


def test_bad_input_writes_nothing(world, dns):
    from clinicrecords.errors import InvalidInput

    workspace_id, status = _claim(world, dns, _now())
    with pytest.raises(InvalidInput):
        with domain_service(world, dns.address) as service:
            service.set_domain(workspace_id, "https://other.example/")
    with domain_service(world, dns.address) as service:
        assert service.status(workspace_id) == status
        with pytest.raises(InvalidInput, match="no domain"):
            service.check_now(world.workspace()[0])


@pytest.mark.commits  # two claims race from threads
def test_two_first_claims_at_once_both_answer_and_the_later_one_wins(world, dns):
    import threading
    import time

    workspace_id, _ = world.workspace(verified=False)
    first_domain, second_domain = unique_domain(), unique_domain()
    first_inserted, commit_first, answers = threading.Event(), threading.Event(), {}

    def first():
        with domain_service(world, dns.address) as service:
            answers["first"] = service.set_domain(workspace_id, first_domain)
            first_inserted.set()
            commit_first.wait(5)

    def second():
        with domain_service(world, dns.address) as service:
            answers["second"] = service.set_domain(workspace_id, second_domain)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    threads[0].start()
    first_inserted.wait(5)
    threads[1].start()
    time.sleep(0.3)  # the second claim now waits on the first's uncommitted row
    assert "second" not in answers
    commit_first.set()
    for thread in threads:
        thread.join(10)
    assert (answers["first"].domain, answers["second"].domain) == (first_domain, second_domain)
    assert answers["second"].txt_value != answers["first"].txt_value
    with domain_service(world, dns.address) as service:
        assert service.status(workspace_id) == answers["second"]
