"""What a Redis failover may lose: an export's task queued on a primary that died before its replica had it.
The export is a row; the per-minute sweep queues it again once its attempt is stale, and it completes once."""

import datetime
import uuid

import webtest
from sqlalchemy import func, select

from clinicrecords import tasks
from clinicrecords.exports.models import ExportJob
from clinicrecords.exports.tasks import restart_stalled_exports
from clinicrecords.settings import read
from tests.common.clinical import headers, sandbox
from tests.exports.flow import kick_off, status_url


def _run_the_queue():
    while tasks.huey.pending_count():
        tasks.huey.execute(tasks.huey.dequeue())


def _sweep(registry, after, job_id):
    """Whether the sweep queued the job again (it may find others: this package's tests commit for real)."""
    with tasks.prepared_request(registry) as request, request.tm:
        now = request.db.scalar(select(func.now())) + after
        restart_stalled_exports(request, now=now)
        return request.db.scalar(select(ExportJob.heartbeat_at).where(ExportJob.id == job_id)) == now


def test_an_export_redis_lost_is_swept_back_and_completed(settings, redis_server, world, make_app):
    clinic_id, key = sandbox(world)
    wsgi = make_app(**{"huey.backend": "redis", "huey.redis_url": redis_server.url, "huey.immediate": "false"})
    app = webtest.TestApp(wsgi, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    try:
        with redis_server.client() as client:
            client.flushall()
            url = status_url(kick_off(app, clinic_id, key, "?_type=Patient"))
            assert tasks.huey.pending_count() == 1
            client.flushall()  # the queue as a promoted replica that never had it sees it
        job_id = uuid.UUID(url.rsplit("/", 1)[1])
        assert not _sweep(wsgi.registry, datetime.timedelta(0), job_id), "a job just queued is not stale"
        stale = datetime.timedelta(seconds=901)  # exports.stale_after_seconds is 900
        assert _sweep(wsgi.registry, stale, job_id)
        _run_the_queue()
        assert not _sweep(wsgi.registry, stale, job_id)  # completed: nothing to restart
        _run_the_queue()
    finally:
        tasks.configure(read(settings))
    with world.db() as db:
        job = db.get(ExportJob, job_id)
        assert (job.status, job.attempt) == ("completed", 1)
    manifest = app.get(url, headers=headers(key), status=200).json
    assert [entry["type"] for entry in manifest["output"]] == ["Patient"]
