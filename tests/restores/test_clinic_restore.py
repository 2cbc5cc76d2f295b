"""One clinic restored from a copy of the database at T (`clinic restore --clinic ID --from URL`) while the
service runs: its records of T back with a new updated_at, the restrictions and sensitive flags made since kept,
the audit trail and the feed going on (a clinic.restored event), the answers stored for its writes after T
forgotten, and every other clinic as it is. While it runs, the clinic's keys get 503 with Retry-After past their
reach check; a crash leaves the clinic as it was and refusing nothing. Bad input exits 2 and changes nothing.

The copy "at T" is a second database on the test server, cloned from the test's own database at T (the
rehearsal, `scripts/rehearse --backup`, restores one from pgBackRest for real)."""

import datetime
import io
import sys
import uuid
from unittest import mock

import psycopg
import pytest
from sqlalchemy import text
from webtest import TestApp

from clinicrecords.db import embedded
from clinicrecords.db.tenancy import bind_to_clinic, clinic_lock_key
from clinicrecords.encounters.schemas import SANDBOX_ENCOUNTER_IDS
from clinicrecords.exports.models import ExportJob
from clinicrecords.exports.services import RESTORED_UNDER_IT
from clinicrecords.restores.clinic_restore import restore_clinic
from clinicrecords.settings import app_settings, var_dir
from tests.common.cli import ok, refused
from tests.common.scopes import a_patient
from tests.listings.conftest import Network
from tests.listings.test_search import AMOXICILLIN


def _schema(clinic_id):
    return f"clinic_{uuid.UUID(str(clinic_id)).hex}"


def _sql(world, statement, **params):
    with world.db() as db:
        return db.execute(text(statement), params)


def _names(world, clinic_id):
    return set(_sql(world, f'SELECT family_name FROM "{_schema(clinic_id)}".patients').scalars())


def _patient(app, clinic_id, key, family_name, idempotency_key=None):
    headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": idempotency_key or str(uuid.uuid4())}
    answer = app.post_json(f"/v1/clinics/{clinic_id}/patients",
                           {"given_name": "Restore", "family_name": family_name, "birth_date": "1990-05-05"},
                           headers=headers)
    return answer


def _patch(app, clinic_id, key, patient_id, given_name, idempotency_key):
    return app.patch_json(f"/v1/clinics/{clinic_id}/patients/{patient_id}", {"given_name": given_name},
                          headers={"Authorization": f"Bearer {key}", "Idempotency-Key": idempotency_key})


class _Terminal(io.StringIO):
    """stderr as an operator's terminal: the progress bar is drawn only there."""

    def isatty(self):
        return True


def test_one_clinic_restored_to_t_while_the_other_keeps_its_writes(own_database, copy_at):
    ini, world, _, wsgi_app = own_database
    app = TestApp(wsgi_app)
    clinic = world.clinic("Restored Clinic", seed=True)
    other = world.clinic("Other Clinic")
    key, other_key = world.key(clinic_id=clinic), world.key(clinic_id=other)
    partner, _ = world.workspace("Partner")
    world.grant(partner, clinic)
    world.grant(partner, other)
    partner_key = world.key(workspace_id=partner, mode="live")
    world.webhook(clinic_id=clinic)
    kept = _patient(app, clinic, key, "Kept").json["data"]["id"]
    flagged = _patient(app, clinic, key, "Flagged").json["data"]["id"]
    with world.db() as db:
        bind_to_clinic(db, clinic)
        seeded = a_patient(db)
    encounter_id = SANDBOX_ENCOUNTER_IDS[0]
    before = _names(world, clinic)
    count = _sql(world, f'SELECT count(*) FROM "{_schema(clinic)}".patients').scalar()
    copy_url = copy_at()
    restored_to = _sql(world, f'SELECT max(at) FROM "{_schema(clinic)}".audit_log').scalar()

    # After T: a write whose answer is stored, a restriction and a sensitive flag, then the accident; and the
    # other clinic writing on.
    _patient(app, clinic, key, "After T", idempotency_key="after-t")
    _patient(app, clinic, partner_key, "Partner after T", idempotency_key="partner-after-t")
    partner_patch = _patch(app, clinic, partner_key, kept, "Patched after T", idempotency_key="partner-patch")
    assert partner_patch.status_int == 200 and "Location" not in partner_patch.headers
    _patient(app, other, partner_key, "Partner other after T", idempotency_key="partner-other-after-t")
    ok("patient", "restrict", "--clinic", clinic, flagged, "--on", ini=ini)
    ok("encounter", "mark-sensitive", "--clinic", clinic, encounter_id, ini=ini)
    _patient(app, other, other_key, "Other after T")
    _sql(world, f'UPDATE "{_schema(clinic)}".patients SET given_name = \'Overwritten\' WHERE id = :id', id=seeded)
    _sql(world, f'DELETE FROM "{_schema(clinic)}".patients WHERE family_name IN (\'Kept\', \'Flagged\')')
    audit_before = _sql(world, f'SELECT count(*) FROM "{_schema(clinic)}".audit_log').scalar()
    last_seq = _sql(world, f'SELECT value FROM "{_schema(clinic)}".event_counter').scalar() or 0
    sensitive = _sql(world, f'SELECT count(*) FROM "{_schema(clinic)}".encounters WHERE sensitive').scalar()
    started = datetime.datetime.now(datetime.UTC)

    done = ok("clinic", "restore", "--clinic", clinic, "--from", copy_url, ini=ini)

    assert done["clinic_id"] == str(clinic) and done["restored_to"] == restored_to.isoformat()
    assert done["rows"]["patients"] == count and done["rows"]["encounters"] >= 1
    assert not {"audit_log", "events", "event_counter"} & set(done["rows"])
    assert done["idempotency_records_forgotten"] == 3 and 0 <= done["seconds"] < 60
    # The restriction's row was destroyed with it: the security-events file has it; the flag is in both.
    assert done["security_events_applied"] == 2 and done["kept_flags"] == {"patients.restricted": 0,
                                                                          "encounters.sensitive": sensitive}
    assert _names(world, clinic) == before
    assert "Other after T" in _names(world, other)
    assert _sql(world, f'SELECT given_name FROM "{_schema(clinic)}".patients WHERE id = :id',
                id=seeded).scalar() != "Overwritten"
    # Nothing protecting a patient went backwards; every restored row is new to `_since` readers.
    schema = _schema(clinic)
    assert _sql(world, f'SELECT restricted FROM "{schema}".patients WHERE id = :id', id=flagged).scalar()
    assert _sql(world, f'SELECT sensitive FROM "{schema}".encounters WHERE id = :id', id=encounter_id).scalar()
    assert not _sql(world, f'SELECT restricted FROM "{schema}".patients WHERE id = :id', id=kept).scalar()
    assert _sql(world, f'SELECT min(updated_at) FROM "{schema}".patients').scalar() > started
    since = app.get(f"/v1/clinics/{clinic}/patients", {"updated_since": started.isoformat(), "limit": 100},
                    headers={"Authorization": f"Bearer {key}"}).json["data"]
    visible = set(_sql(world, f'SELECT id::text FROM "{schema}".patients WHERE NOT restricted').scalars())
    assert {patient["id"] for patient in since} == visible and kept in visible
    # The audit trail keeps everything; the feed goes on from its counter and says what happened.
    assert _sql(world, f'SELECT count(*) FROM "{schema}".audit_log').scalar() >= audit_before
    feed = app.get(f"/v1/clinics/{clinic}/events?after_seq={last_seq}",
                   headers={"Authorization": f"Bearer {key}"}).json["events"]
    assert [(event["type"], event["seq"], event["data"]) for event in feed] == [
        ("clinic.restored", last_seq + 1, {"restored_to": restored_to.isoformat()})]
    # The write after T is gone, and its retry writes it again instead of replaying an answer about it.
    retried = _patient(app, clinic, key, "After T", idempotency_key="after-t")
    assert retried.status_int == 201 and "Idempotent-Replayed" not in retried.headers
    assert "After T" in _names(world, clinic)
    # A partner's too (its answer's Location is in the clinic).
    retried = _patient(app, clinic, partner_key, "Partner after T", idempotency_key="partner-after-t")
    assert retried.status_int == 201 and "Idempotent-Replayed" not in retried.headers
    assert "Partner after T" in _names(world, clinic)
    # Its PATCH, whose answer points nowhere (no Location): the restore undid it, so its retry applies it again.
    retried = _patch(app, clinic, partner_key, kept, "Patched after T", idempotency_key="partner-patch")
    assert retried.status_int == 200 and "Idempotent-Replayed" not in retried.headers
    assert _sql(world, f'SELECT given_name FROM "{schema}".patients WHERE id = :id',
                id=kept).scalar() == "Patched after T"
    # Its answer for a write to another clinic is kept: that write is still there, and its retry replays.
    retried = _patient(app, other, partner_key, "Partner other after T", idempotency_key="partner-other-after-t")
    assert retried.status_int == 201 and retried.headers["Idempotent-Replayed"] == "true"
    assert _sql(world, f'SELECT count(*) FROM "{_schema(other)}".patients '
                "WHERE family_name = 'Partner other after T'").scalar() == 1
    app.get(f"/v1/clinics/{clinic}/patients/{kept}", headers={"Authorization": f"Bearer {key}"}, status=200)


def test_while_it_runs_the_clinics_keys_get_503_past_their_reach(own_database):
    ini, world, _, wsgi_app = own_database
    app = TestApp(wsgi_app)
    clinic, other = world.clinic(), world.clinic("Other Clinic")
    key, other_key = world.key(clinic_id=clinic), world.key(clinic_id=other)
    dsn = wsgi_app.registry["db.engine"].url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as restoring:  # the restore's transaction, holding the clinic's lock
        restoring.execute("SELECT pg_advisory_xact_lock(%s)", (clinic_lock_key(clinic),))
        busy = app.get(f"/v1/clinics/{clinic}/patients", headers={"Authorization": f"Bearer {key}"}, status=503)
        assert busy.headers["Retry-After"] == "10" and busy.json["code"] == "service_unavailable"
        # Another clinic's key learns nothing of the restore: its answer is the one it always gets.
        unreached = app.get(f"/v1/clinics/{clinic}/patients", headers={"Authorization": f"Bearer {other_key}"},
                            expect_errors=True)
        assert unreached.status_int == 404, unreached
        app.get(f"/v1/clinics/{other}/patients", headers={"Authorization": f"Bearer {other_key}"}, status=200)
        restoring.rollback()
    app.get(f"/v1/clinics/{clinic}/patients", headers={"Authorization": f"Bearer {key}"}, status=200)


def test_a_crash_midway_leaves_the_clinic_as_it_was_and_it_runs_again(own_database, copy_at):
    ini, world, _, wsgi_app = own_database
    app = TestApp(wsgi_app)
    clinic = world.clinic(seed=True)
    key = world.key(clinic_id=clinic)
    copy_url = copy_at()
    _patient(app, clinic, key, "After T")
    now = _names(world, clinic)
    count = _sql(world, f'SELECT count(*) FROM "{_schema(clinic)}".patients').scalar()

    def crash(done, total):
        if done == total // 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), world.db() as db:
        restore_clinic(db, clinic, copy_url, progress=crash)
    assert _names(world, clinic) == now
    app.get(f"/v1/clinics/{clinic}/patients", headers={"Authorization": f"Bearer {key}"}, status=200)
    terminal = _Terminal()
    with mock.patch.object(sys, "stderr", terminal):
        done = ok("clinic", "restore", "--clinic", clinic, "--from", copy_url, ini=ini)
    assert _names(world, clinic) == now - {"After T"} and done["rows"]["patients"] == count - 1
    # Its progress on stderr as `migrate` draws it (stdout stays the one JSON object): a step per table.
    tables = len(done["rows"])
    assert terminal.getvalue().endswith(f"\rrestoring clinic {clinic} [{'#' * 30}] {tables}/{tables}\n")
    assert f"] 1/{tables}" in terminal.getvalue()


def test_refusals_exit_2_and_change_nothing(own_database, copy_at):
    ini, world, _, wsgi_app = own_database
    clinic = world.clinic(seed=True)
    copy_url = copy_at()
    made_after_t = world.clinic("Made after T")
    production_url = wsgi_app.registry["db.engine"].url.render_as_string(hide_password=False)
    stale_url = copy_at()
    stale = stale_url.rpartition("/")[2].partition("?")[0]
    with psycopg.connect(embedded.superuser_url(var_dir(app_settings(wsgi_app.registry)), stale)) as db:
        db.execute("UPDATE control.alembic_version SET version_num = 'older'")
    names = _names(world, clinic)
    for clinic_id, url, says in (
            (uuid.uuid4(), copy_url, "no clinic"),
            (clinic, production_url, "names the production database itself"),
            (clinic, production_url.replace("postgresql+psycopg://", "postgresql://"),
             "names the production database itself"),
            (made_after_t, copy_url, "the copy has no clinic"),
            (clinic, stale_url, "the copy's control schema is at migration older"),
            (clinic, wsgi_app.registry["db.engine"].url.set(database="postgres").render_as_string(hide_password=False),
             "--from names a database without clinics"),
            (clinic, "postgresql://nobody@127.0.0.1:1/none", "cannot connect to the copy")):
        err = refused("clinic", "restore", "--clinic", clinic_id, "--from", url, ini=ini)
        assert says in err and len(err.strip().splitlines()) == 1, err
    assert _names(world, clinic) == names


def test_the_network_search_and_unfinished_exports_follow_the_restored_records(own_database, copy_at):
    ini, world, _, wsgi_app = own_database
    network = Network(world, TestApp(wsgi_app))
    till = network.pharmacy()
    item_id = till.item(**AMOXICILLIN, quantity=30)
    copy_url = copy_at()
    till.link(item_id, linked=False)  # after T: off the network
    assert network.search({"item": {"gtin": AMOXICILLIN["gtin"]}})["data"] == []
    with world.db() as db:
        job = ExportJob(clinic_id=till.id, key_id="k", granted=[], level="system", types=[], request_url="/x",
                        base_url="/", status="running", expires_at=datetime.datetime.now(datetime.UTC)
                        + datetime.timedelta(days=1))
        db.add(job)
        db.flush()
        job_id = job.id

    done = ok("clinic", "restore", "--clinic", till.id, "--from", copy_url, ini=ini)

    assert (done["listed_items"], done["exports_failed"]) == (1, 1)
    [entry] = network.search({"item": {"gtin": AMOXICILLIN["gtin"]}})["data"]
    assert entry["item_id"] == str(item_id)
    with world.db() as db:
        job = db.get(ExportJob, job_id)
        assert (job.status, job.error) == ("failed", RESTORED_UNDER_IT)
