"""The worker's periodic check, through the real Huey task, and two workers running it at once."""

import datetime
import threading

import pytest
from sqlalchemy import select

from clinicrecords.onboarding.models import WorkspaceDomain
from clinicrecords.onboarding.tasks import check_due_domains, check_due_domains_now
from tests.onboarding.dns_server import HeldServer, authoritative_server
from tests.onboarding.helpers import unique_domain, workspace_verified

MIN = datetime.timedelta(minutes=1)


@pytest.fixture
def dns(make_app):
    """A DNS server, and the tasks' application configured to ask it (setting verification.nameservers)."""
    with authoritative_server() as (zone, address):
        zone.registry = make_app(**{"verification.nameservers": address}).registry
        yield zone


def _claim_due(world, dns, publish=True):
    """A workspace whose domain was set 6 minutes ago: its first check is due."""
    from clinicrecords.onboarding.interfaces import IDomainVerification

    workspace_id, _ = world.workspace(verified=False)
    with world.request() as request:
        status = request.find_service(IDomainVerification).set_domain(
            workspace_id, unique_domain(), now=datetime.datetime.now(datetime.UTC) - 6 * MIN)
    if publish:
        dns.publish(status.txt_host, status.txt_value)
    return workspace_id, status


def test_the_task_runs_every_minute():
    assert all(check_due_domains.task_class().validate_datetime(datetime.datetime(2026, 1, 1, 3, minute))
               for minute in range(60))


def test_the_periodic_task_checks_due_domains_and_verifies(world, dns):
    workspace_id, status = _claim_due(world, dns)
    pending_id, pending = _claim_due(world, dns, publish=False)
    check_due_domains()  # Huey keeps no result for periodic tasks: their effects are checked
    assert workspace_verified(world, workspace_id)
    assert not workspace_verified(world, pending_id)
    with world.db() as db:
        assert db.get(WorkspaceDomain, workspace_id).state == "verified"
        row = db.get(WorkspaceDomain, pending_id)
        assert (row.state, row.last_result) == ("pending", "nxdomain")
    # Checked once: the next run finds nothing of theirs due.
    check_due_domains()
    assert dns.queries[status.txt_host] == dns.queries[pending.txt_host] == 1


@pytest.mark.commits  # two workers race from threads
def test_two_workers_at_once_check_each_due_domain_once(world, dns):
    claimed = [_claim_due(world, dns) for _ in range(4)]
    dns.delay = 0.2  # each answer takes a while, so the workers overlap
    results = []
    workers = [threading.Thread(target=lambda: results.append(check_due_domains_now(dns.registry)))
               for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    ours = [[item for item in result if item in {str(w) for w, _ in claimed}] for result in results]
    assert sorted(ours[0] + ours[1]) == sorted(str(w) for w, _ in claimed)  # each checked by one worker
    assert all(dns.queries[status.txt_host] == 1 for _, status in claimed)
    assert all(workspace_verified(world, workspace_id) for workspace_id, _ in claimed)


@pytest.mark.commits  # another worker holds the row lock on a connection of its own
def test_a_check_another_worker_holds_is_skipped_without_waiting(world, dns, engine):
    workspace_id, status = _claim_due(world, dns)
    with engine.connect() as other_worker:
        other_worker.execute(select(WorkspaceDomain).where(WorkspaceDomain.workspace_id == workspace_id)
                             .with_for_update())
        assert str(workspace_id) not in check_due_domains_now(dns.registry)
        other_worker.rollback()
    assert dns.queries[status.txt_host] == 0
    assert str(workspace_id) in check_due_domains_now(dns.registry)


@pytest.mark.commits  # the worker's check runs in a thread while the test looks at the pool
def test_a_scheduled_check_waiting_on_dns_holds_no_connection_and_a_check_now_is_refused_at_once(world, make_app):
    """Decision 0067: the worker's checks obey the rule of "Check now": no connection while DNS answers."""
    from clinicrecords.onboarding.interfaces import CheckRefused, IDomainVerification
    from clinicrecords.tasks import prepared_request

    with HeldServer() as held:
        registry = make_app(**{"verification.nameservers": held.address,
                               "verification.dns_timeout_seconds": "30"}).registry
        workspace_id, _ = world.workspace(verified=False)
        with prepared_request(registry) as request, request.tm:
            request.find_service(IDomainVerification).set_domain(
                workspace_id, unique_domain(), now=datetime.datetime.now(datetime.UTC) - 6 * MIN)
        checked = {}

        def worker():
            with prepared_request(registry) as request, request.tm:
                checked["status"] = request.find_service(IDomainVerification).check_if_due(workspace_id)

        thread = threading.Thread(target=worker, daemon=True)
        thread.start()
        try:
            assert held.asked.wait(30), "the scheduled check never asked the nameserver"
            assert registry["db.engine"].pool.checkedout() == 0
            with pytest.raises(CheckRefused, match="running now"):
                with prepared_request(registry) as request, request.tm:
                    request.find_service(IDomainVerification).check_now(workspace_id)
            with prepared_request(registry) as request, request.tm:  # nor does another worker wait for it
                assert request.find_service(IDomainVerification).check_if_due(workspace_id) is None
        finally:
            held.release()
            thread.join(60)
    assert checked["status"].last_result == "nxdomain" and held.queries == 1
    with world.db() as db:
        assert db.get(WorkspaceDomain, workspace_id).check_started_at is None
