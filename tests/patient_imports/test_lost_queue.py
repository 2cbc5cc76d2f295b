"""What a Redis failover may lose (decision 0080): an import's write task queued on a primary that died before
its replica had it. The import is a row with a run whose heartbeat stops; the per-minute sweep queues it again
once the heartbeat is stale, and every row becomes exactly one patient."""

import datetime
import uuid

import webtest
from sqlalchemy import func, select

from clinicrecords import tasks
from clinicrecords.patients.imports.models import PatientImport, PatientImportRun
from clinicrecords.patients.imports.tasks import resume_interrupted_imports
from clinicrecords.patients.models import Patient
from clinicrecords.settings import read
from tests.common.clinical import clinic_db, headers


def _run_the_queue():
    while tasks.huey.pending_count():
        tasks.huey.execute(tasks.huey.dequeue())


def _sweep(registry, after):
    with tasks.prepared_request(registry) as request, request.tm:
        now = request.db.scalar(select(func.now())) + after
        return resume_interrupted_imports(request, now=now)


def test_an_import_redis_lost_is_swept_back_and_written_once(settings, redis_server, world, make_app):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id)
    overrides = {"huey.backend": "redis", "huey.redis_url": redis_server.url, "huey.immediate": "false",
                 "patient_imports.wait_seconds": "0"}
    wsgi = make_app(**overrides)
    app = webtest.TestApp(wsgi, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    rows = [{"given_name": "Lost", "family_name": f"Queue{n}", "birth_date": "1970-01-01"} for n in range(3)]
    try:
        with redis_server.client() as client:
            client.flushall()
            answer = app.post_json(f"/v1/clinics/{clinic_id}/patient-imports",
                                   {"input_format": "json_array", "data": rows}, headers=headers(key), status=202)
            assert tasks.huey.pending_count() == 1
            client.flushall()  # the queue as a promoted replica that never had it sees it
        import_id = uuid.UUID(answer.json["data"]["id"])
        assert _sweep(wsgi.registry, datetime.timedelta(0)) == 0, "the writer's heartbeat is still fresh"
        stale = datetime.timedelta(seconds=61)  # patient_imports.stale_after_seconds is 60
        assert _sweep(wsgi.registry, stale) == 1
        _run_the_queue()
        assert _sweep(wsgi.registry, stale) == 0  # finished: nothing to resume
        _run_the_queue()
    finally:
        tasks.configure(read(settings))
    with clinic_db(world, clinic_id) as db:
        assert db.get(PatientImport, import_id).status == "succeeded"
        assert sorted(db.scalars(select(Patient.family_name)).all()) == ["Queue0", "Queue1", "Queue2"]
        assert db.scalar(select(func.count()).select_from(PatientImportRun)) == 0
