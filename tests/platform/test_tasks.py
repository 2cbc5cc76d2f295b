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


@task()
def answer(request, value):
    return value


def test_a_task_s_return_value_is_not_kept_in_redis(settings, redis_url, app):
    """Nobody reads task results: kept, they would fill Redis one entry per webhook delivery (the rehearsal
    found it), and with noeviction a full Redis refuses every write."""
    from clinicrecords import tasks
    from clinicrecords.settings import read

    tasks.configure(read({**settings, "huey.backend": "redis", "huey.redis_url": redis_url, "huey.immediate": "false"}))
    try:
        answer("kept?")
        tasks.huey.execute(tasks.huey.dequeue())
        assert tasks.huey.storage.conn.keys("huey.results.*") == [] and tasks.huey.pending_count() == 0
    finally:
        tasks.configure(read(settings))
