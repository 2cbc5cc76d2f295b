"""Background work is queued only when the request's transaction commits."""

import pytest

from clinicrecords.tasks import task

calls = []


@task()
def remember(request, value):
    calls.append((value, request.db is not None))


@pytest.fixture(autouse=True)
def _reset():
    calls.clear()


def test_enqueued_work_runs_after_commit(world):
    with world.request() as request:
        request.enqueue(remember, "committed")
        assert calls == []
    assert calls == [("committed", True)]


def test_a_rolled_back_request_sends_no_work(world):
    with pytest.raises(RuntimeError):
        with world.request() as request:
            request.enqueue(remember, "rolled back")
            raise RuntimeError("the request failed")
    assert calls == []
