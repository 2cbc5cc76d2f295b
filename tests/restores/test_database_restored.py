"""After the whole database was restored to a time T (`database restored --to T --security-events FILE`):
every clinic's change feed moves past any seq handed out after T and says so with `clinic.restored`; the key
and connection revocations, connection narrowing, patient restrictions and sensitive flags recorded after T
in the security-events file are applied again. Bad input exits 2 and changes nothing.

The restore itself is rehearsed for real by `scripts/rehearse --backup`; here the copy "at T" is this
database with what happened after T undone by SQL, as a restore brings it back."""

import datetime
import json
import uuid

import psycopg
from sqlalchemy import text
from webtest import TestApp

from clinicrecords.access.interfaces import ALL_PERMISSIONS, Permission
from clinicrecords.db import embedded
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.encounters.schemas import SANDBOX_ENCOUNTER_IDS
from clinicrecords.restores.services import SEQ_GAP
from clinicrecords.settings import app_settings, var_dir
from tests.common.cli import admin, ok, refused
from tests.common.scopes import a_patient
from tests.events.support import emit_events

SCOPES = sorted(ALL_PERMISSIONS)


def _schema(clinic_id):
    return f"clinic_{uuid.UUID(str(clinic_id)).hex}"


def _sql(world, statement, **params):
    with world.db() as db:
        return db.execute(text(statement), params)


def test_feeds_move_past_every_seq_and_security_events_after_t_are_applied_again(own_database):
    ini, world, events_file, wsgi_app = own_database
    connected = world.connected()
    other = world.clinic("Other Clinic", seed=True)
    world.webhook(clinic_id=connected.clinic_id)
    world.webhook(clinic_id=other)
    emit_events(world, connected.clinic_id, 3)
    emit_events(world, other, 1)
    key_id, revoked_key = world.key_row(clinic_id=other)
    narrowed_ws, _ = world.workspace("Narrowed")
    world.grant(narrowed_ws, connected.clinic_id, SCOPES)
    narrowed_key = world.key(workspace_id=narrowed_ws, mode="live")
    with world.db() as db:
        bind_to_clinic(db, other)
        patient_id = a_patient(db)
    encounter_id = SANDBOX_ENCOUNTER_IDS[0]

    restored_to = datetime.datetime.now(datetime.UTC)
    # After T: what the restore will bring back undone.
    ok("key", "revoke", key_id, ini=ini)
    ok("connection", "revoke", "--workspace", connected.workspace_id, "--clinic", connected.clinic_id, ini=ini)
    ok("connection", "grant", "--workspace", narrowed_ws, "--clinic", connected.clinic_id,
       "--scopes", "patients:read", ini=ini)
    ok("patient", "restrict", "--clinic", other, patient_id, "--on", ini=ini)
    ok("encounter", "mark-sensitive", "--clinic", other, encounter_id, ini=ini)
    emit_events(world, connected.clinic_id, 2)  # seq 4 and 5, seen by partners, lost by the restore
    kinds = [json.loads(line)["kind"] for line in events_file.read_text().splitlines()]
    assert kinds == ["key.revoked", "connection.revoked", "connection.narrowed", "patient.restricted",
                     "encounter.sensitive"]

    # The restore to T: every one of those undone, the feed back at seq 3.
    _sql(world, "UPDATE control.api_keys SET revoked_at = NULL WHERE key_id = :key_id", key_id=key_id)
    _sql(world, "UPDATE control.connections SET revoked_at = NULL WHERE clinic_id = :clinic",
         clinic=connected.clinic_id)
    _sql(world, "UPDATE control.connections SET scopes = :scopes WHERE workspace_id = :ws", scopes=SCOPES,
         ws=narrowed_ws)
    _sql(world, f'UPDATE "{_schema(other)}".patients SET restricted = false WHERE id = :id', id=patient_id)
    _sql(world, f'UPDATE "{_schema(other)}".encounters SET sensitive = false WHERE id = :id', id=encounter_id)
    schema = _schema(connected.clinic_id)
    _sql(world, f'DELETE FROM "{schema}".events WHERE seq > 3')
    _sql(world, f'UPDATE "{schema}".event_counter SET value = 3')

    done = ok("database", "restored", "--to", restored_to.isoformat(), "--security-events", events_file, ini=ini)
    # Two clinics and the two workspaces' sandbox clinics.
    assert done == {"restored_to": restored_to.isoformat(), "seq_gap": SEQ_GAP, "clinics": 4,
                    "security_events": {"after_t": 5, "applied": {kind: 1 for kind in kinds}, "absent": {}},
                    "audit_entries_copied": None, "audit_clinics_skipped": None}

    # Every clinic's counter past any seq it handed out, and the feed says the clinic was restored to T.
    counters = {clinic: _sql(world, f'SELECT value FROM "{_schema(clinic)}".event_counter').scalar()
                for clinic in (connected.clinic_id, other)}
    assert counters == {connected.clinic_id: 3 + SEQ_GAP + 1, other: 1 + SEQ_GAP + 1}
    app = TestApp(wsgi_app)
    feed_key = world.key(clinic_id=connected.clinic_id)
    feed = app.get(f"/v1/clinics/{connected.clinic_id}/events?after_seq=3",
                   headers={"Authorization": f"Bearer {feed_key}"}).json
    [restored] = feed["events"]
    assert (restored["type"], restored["seq"], restored["data"]) == (
        "clinic.restored", 3 + SEQ_GAP + 1, {"restored_to": restored_to.isoformat()})
    # A partner holding none of the feed's other types' permissions reads it too.
    narrow_feed = app.get(f"/v1/clinics/{connected.clinic_id}/events?after_seq=3",
                          headers={"Authorization": f"Bearer {narrowed_key}"}).json
    assert [(event["type"], event["seq"]) for event in narrow_feed["events"]] == [
        ("clinic.restored", 3 + SEQ_GAP + 1)]
    assert emit_events(world, connected.clinic_id)[0].seq == 3 + SEQ_GAP + 2

    # The security events after T hold again.
    assert _sql(world, "SELECT revoked_at IS NOT NULL FROM control.api_keys WHERE key_id = :k", k=key_id).scalar()
    assert _sql(world, "SELECT revoked_at IS NOT NULL FROM control.connections WHERE clinic_id = :c "
                       "AND workspace_id = :w", c=connected.clinic_id, w=connected.workspace_id).scalar()
    assert _sql(world, "SELECT scopes FROM control.connections WHERE workspace_id = :w",
                w=narrowed_ws).scalar() == [Permission.PatientsRead]
    assert _sql(world, f'SELECT restricted FROM "{_schema(other)}".patients WHERE id = :id', id=patient_id).scalar()
    assert _sql(world, f'SELECT sensitive FROM "{_schema(other)}".encounters WHERE id = :id',
                id=encounter_id).scalar()
    assert app.get("/v1/me", headers={"Authorization": f"Bearer {revoked_key}"}, status=401)
    cut_off = app.get(f"/v1/clinics/{connected.clinic_id}/patients",
                      headers={"Authorization": f"Bearer {connected.key}"}, expect_errors=True)
    assert cut_off.status_int == 404, cut_off


def test_bad_input_exits_2_and_changes_nothing(own_database, tmp_path):
    ini, world, events_file, _ = own_database
    clinic = world.clinic()
    world.webhook(clinic_id=clinic)
    emit_events(world, clinic, 2)
    malformed = tmp_path / "malformed.jsonl"
    malformed.write_text('{"at": "2026-01-01T00:00:00+00:00", "kind": "key.revoked", "key_id": "k"}\nnot json\n')
    now = datetime.datetime.now(datetime.UTC).isoformat()
    for argv, says in (
            (("--to", now, "--security-events", tmp_path / "missing.jsonl"), "cannot read the security events"),
            (("--to", now, "--security-events", malformed), "line 2 is not a security event")):
        err = refused("database", "restored", *argv, ini=ini)
        assert says in err and len(err.strip().splitlines()) == 1, err
    # Refused by the arguments' parser (exit 2, its usage on stderr).
    for argv in (("--to", "yesterday", "--security-events", malformed), ("--to", now),
                 ("--to", now, "--security-events", malformed, "--seq-gap", "0")):
        assert admin("database", "restored", *argv, ini=ini)[:2] == (2, None)
    assert _sql(world, f'SELECT value FROM "{_schema(clinic)}".event_counter').scalar() == 2


def _audit(url_or_world, clinic_id):
    """{entry id: at} of a clinic's audit trail, on the test's database (a World) or a clone (its URL)."""
    query = f'SELECT id, at FROM "{_schema(clinic_id)}".audit_log'
    if isinstance(url_or_world, str):
        with psycopg.connect(url_or_world.replace("postgresql+psycopg://", "postgresql://", 1)) as db:
            return dict(db.execute(query).fetchall())
    return dict(_sql(url_or_world, query).all())


def _write(app, clinic_id, key, family_name):
    app.post_json(f"/v1/clinics/{clinic_id}/patients",
                  {"given_name": "Audit", "family_name": family_name, "birth_date": "1990-05-05"},
                  headers={"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}, status=201)


def _undo_after(world, clinic_id, restored_to, also=()):
    """What a restore to T does to a clinic's audit trail: the entries written after T (and `also`, entries
    stamped before T whose commit came after it) are not there. `audit_log` refuses DELETE: the superuser
    deletes as a replica would, its triggers not fired."""
    server = var_dir(app_settings(world.registry))
    database = world.registry["db.engine"].url.database
    with psycopg.connect(embedded.superuser_url(server, database)) as db:
        db.execute("SET session_replication_role = replica")
        db.execute(f'DELETE FROM "{_schema(clinic_id)}".audit_log WHERE at > %s OR id = ANY(%s)',
                   (restored_to, list(also)))


def test_the_old_primarys_audit_trail_after_t_is_copied_once(own_database, copy_at):
    ini, world, events_file, wsgi_app = own_database
    events_file.touch()  # no security event after T
    app = TestApp(wsgi_app)
    clinic, other = world.clinic(seed=True), world.clinic("Other Clinic")
    key, other_key = world.key(clinic_id=clinic), world.key(clinic_id=other)
    _write(app, clinic, key, "Before T")
    _write(app, other, other_key, "Before T")
    restored_to = datetime.datetime.now(datetime.UTC)
    # After T, on the old primary: writes to both clinics, and a clinic made (the restore loses it whole).
    for number in range(3):
        _write(app, clinic, key, f"After T {number}")
    _write(app, other, other_key, "After T")
    world.clinic("Made after T")
    old = {clinic_id: _audit(world, clinic_id) for clinic_id in (clinic, other)}
    after_t = {clinic_id: {id for id, at in entries.items() if at > restored_to} for clinic_id, entries in old.items()}
    assert len(after_t[clinic]) >= 3 and len(after_t[other]) >= 1
    old_url = copy_at()

    # The restore to T: the clinic made after T is not there, nor the entries written after T; one entry of
    # just before T committed after it (an entry is stamped as it is written), so the copy lacks it too.
    made_after_t = _sql(world, "SELECT id FROM control.clinics WHERE name = 'Made after T'").scalar()
    _sql(world, f'DROP SCHEMA "{_schema(made_after_t)}" CASCADE')
    _sql(world, "DELETE FROM control.clinics WHERE id = :id", id=made_after_t)
    late_commit = max((at, id) for id, at in old[clinic].items() if at <= restored_to)[1]
    for clinic_id in (clinic, other):
        _undo_after(world, clinic_id, restored_to, also=[late_commit])
    # A clinic the old primary closed after T (its schema gone there): still here.
    closed_there = world.clinic("Closed on the old primary")

    def restored(*more):
        return ok("database", "restored", "--to", restored_to.isoformat(), "--security-events", events_file,
                  "--audit-from", old_url, *more, ini=ini)

    done = restored()
    copied = len(after_t[clinic]) + len(after_t[other]) + 1
    assert (done["audit_entries_copied"], done["audit_clinics_skipped"]) == (
        copied, {"only_in_old": 1, "only_in_restored": 1})
    assert {clinic_id: _audit(world, clinic_id) for clinic_id in (clinic, other)} == old
    assert _audit(world, closed_there) == {}

    # Run again: nothing is copied twice, nothing written since in the restored database is touched.
    _write(app, clinic, key, "After the restore")
    now = _audit(world, clinic)
    again = restored()
    assert again["audit_entries_copied"] == 0
    assert _audit(world, clinic) == now and len(now) == len(old[clinic]) + 1
    assert _audit(world, other) == old[other]


def test_audit_from_refusals_exit_2_and_change_nothing(own_database, copy_at):
    ini, world, events_file, wsgi_app = own_database
    events_file.touch()
    app = TestApp(wsgi_app)
    clinic = world.clinic()
    world.webhook(clinic_id=clinic)
    emit_events(world, clinic, 2)
    key = world.key(clinic_id=clinic)
    restored_to = datetime.datetime.now(datetime.UTC)
    _write(app, clinic, key, "After T")
    stale_url = copy_at()
    stale = stale_url.rpartition("/")[2].partition("?")[0]
    with psycopg.connect(embedded.superuser_url(var_dir(app_settings(wsgi_app.registry)), stale)) as db:
        db.execute("UPDATE control.alembic_version SET version_num = 'older'")
    _undo_after(world, clinic, restored_to)
    itself = wsgi_app.registry["db.engine"].url.render_as_string(hide_password=False)
    for url, says in (
            (itself, "--audit-from names the restored database itself"),
            (itself.replace("postgresql+psycopg://", "postgresql://"), "--audit-from names the restored database"),
            (stale_url, "--audit-from: the copy's control schema is at migration older"),
            (wsgi_app.registry["db.engine"].url.set(database="postgres").render_as_string(hide_password=False),
             "--audit-from names a database without clinics"),
            ("postgresql://nobody@127.0.0.1:1/none", "cannot connect to the old primary --audit-from names"),
            ("not a url", "cannot connect to the old primary --audit-from names")):
        err = refused("database", "restored", "--to", restored_to.isoformat(), "--security-events", events_file,
                      "--audit-from", url, ini=ini)
        assert says in err and len(err.strip().splitlines()) == 1, err
    assert _sql(world, f'SELECT value FROM "{_schema(clinic)}".event_counter').scalar() == 2
    assert not [at for at in _audit(world, clinic).values() if at > restored_to]
