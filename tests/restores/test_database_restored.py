"""After the whole database was restored to a time T (`database restored --to T --security-events FILE`):
every clinic's change feed moves past any seq handed out after T and says so with `clinic.restored`; the key
and connection revocations, connection narrowing, patient restrictions and sensitive flags recorded after T
in the security-events file are applied again. Bad input exits 2 and changes nothing.

The restore itself is rehearsed for real by `scripts/rehearse --backup`; here the copy "at T" is this
database with what happened after T undone by SQL, as a restore brings it back."""

import datetime
import json
import uuid

from sqlalchemy import text
from webtest import TestApp

from clinicrecords.access.interfaces import ALL_PERMISSIONS, Permission
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.encounters.schemas import SANDBOX_ENCOUNTER_IDS
from clinicrecords.restores.services import SEQ_GAP
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
                    "security_events": {"after_t": 5, "applied": {kind: 1 for kind in kinds}, "absent": {}}}

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
