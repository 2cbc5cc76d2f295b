"""Isolation, by property: generated keys of every kind, with random scopes and revocations, call every
registered GET route of a clinic. The oracle is the spec's reach rules:

- no answer ever shows a record of a clinic the key cannot reach;
- "does not exist" and "not yours" answer alike: another clinic's record id and a random id, another
  clinic and a clinic that does not exist, get the same status and code.

Writes: every POST, PATCH and DELETE route of a clinic that names records (in its path or its body), sent
through a clinic the key reaches with another clinic's record ids, answers exactly as with ids that exist
nowhere, and changes nothing in either clinic.
"""

import json
import re
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sqlalchemy import inspect, text

from clinicrecords.access.permissions import ALL_PERMISSIONS
from clinicrecords.api.routes import operations
from clinicrecords.db.tenancy import schema_name
from clinicrecords.patients.schemas import PatientCreate

KINDS = ("clinic_key", "other_clinic_key", "live_connected", "live_revoked_connection", "test_key", "revoked_key")
_PARAMETER = re.compile(r"\{([a-z_]+)\}")


def _patient(testapp, clinic_id, key):
    response = testapp.post_json(f"/v1/clinics/{clinic_id}/patients", PatientCreate.EXAMPLE,
                                 headers={"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())},
                                 status=201)
    return response.json["data"]["id"]


def _url(op, clinic_id, record_id):
    return _PARAMETER.sub(lambda m: str(clinic_id) if m.group(1) == "clinic_id" else str(record_id), op.path)


def _outcome(response):
    code = response.json.get("code") if response.content_type.endswith("json") and response.status_int >= 400 else None
    return response.status_int, code


def test_no_key_sees_outside_its_reach_and_refusals_do_not_tell(app, testapp, world):
    clinic_a, clinic_b = world.clinic("A"), world.clinic("B")
    key_a, key_b = world.key(clinic_id=clinic_a), world.key(clinic_id=clinic_b)
    patient_a, patient_b = _patient(testapp, clinic_a, key_a), _patient(testapp, clinic_b, key_b)
    routes = [op for op in operations(app.registry) if op.method == "GET" and op.node.in_clinic]
    assert len(routes) > 20

    def make_key(kind, scopes):
        """(full key, the clinic it reaches or None)."""
        if kind == "clinic_key":
            return world.key(clinic_id=clinic_a, scopes=scopes or None), clinic_a
        if kind == "other_clinic_key":
            return key_b, clinic_b
        if kind == "revoked_key":
            key_id, full = world.key_row(clinic_id=clinic_a)
            world.revoke_key(key_id)
            return full, None
        workspace_id, sandbox_id = world.workspace()
        if kind == "test_key":
            return world.key(workspace_id=workspace_id, mode="test"), sandbox_id
        world.grant(workspace_id, clinic_a, scopes or ALL_PERMISSIONS)
        if kind == "live_revoked_connection":
            world.revoke_connection(workspace_id, clinic_a)
        key = world.key(workspace_id=workspace_id, mode="live")
        return key, (clinic_a if kind == "live_connected" else None)

    @settings(max_examples=30, deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(kind=st.sampled_from(KINDS),
           scopes=st.frozensets(st.sampled_from(sorted(ALL_PERMISSIONS)), max_size=6),
           ops=st.lists(st.sampled_from(routes), min_size=4, max_size=8, unique_by=lambda op: op.path))
    def check(kind, scopes, ops):
        key, reached = make_key(kind, set(scopes))
        headers = {"Authorization": f"Bearer {key}"}
        secret_ids = {clinic: patient for clinic, patient in ((clinic_a, patient_a), (clinic_b, patient_b))
                      if clinic != reached}

        def get(op, clinic_id, record_id):
            response = testapp.get(_url(op, clinic_id, record_id), headers=headers, status="*")
            assert response.status_int < 500, response.text
            for patient in secret_ids.values():
                assert patient not in response.text, f"{kind} saw a record outside its reach at {op.path}"
            return response

        for op in ops:
            own = reached or clinic_a
            other = clinic_b if own != clinic_b else clinic_a
            get(op, own, patient_a if own == clinic_a else patient_b)
            # Another clinic's record through a clinic the key reaches, and a record that does not exist.
            if "{" in op.path.replace("{clinic_id}", ""):
                assert _outcome(get(op, own, secret_ids.get(other, uuid.uuid4()))) == \
                    _outcome(get(op, own, uuid.uuid4()))
            # A clinic out of reach and a clinic that does not exist.
            if other != reached:
                out_of_reach = get(op, other, uuid.uuid4())
                assert out_of_reach.status_int >= 400
                assert _outcome(out_of_reach) == _outcome(get(op, uuid.uuid4(), uuid.uuid4()))

    check()


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _snapshot(engine, clinic_id):
    """A digest of every table of the clinic's schema but its audit log (which records the attempts)."""
    schema = schema_name(clinic_id)
    with engine.connect() as connection:
        tables = sorted(set(inspect(connection).get_table_names(schema=schema)) - {"audit_log"})
        return {table: connection.execute(text(
            f"SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) "
            f'FROM "{schema}"."{table}" t')).one() for table in tables}


def _problem(response):
    """The whole problem body but its request id, with record ids masked (the two variants name different
    ids): status, code, detail and every error's pointer and message must match."""
    problem = {name: value for name, value in response.json.items() if name != "request_id"}
    return response.status_int, _UUID.sub("<id>", json.dumps(problem, sort_keys=True))


def _write_requests(op, foreign_clinic_ids):
    """(foreign, nowhere): the route's URL and example body naming the other clinic's records, and the same
    with every record id replaced by one that exists nowhere. None when the route names no record."""
    schema = op.options.get("body_schema")
    example = getattr(schema, "EXAMPLE", None)
    body = json.dumps(example) if example is not None else None
    parameters = [p for p in op.node.parameters if p.name != "clinic_id"]
    if not parameters and not (body and _UUID.search(body)):
        return None
    renamed = {}

    def nowhere(match):
        return renamed.setdefault(match.group(0), str(uuid.uuid4()))

    foreign_path = op.path
    for parameter in parameters:
        foreign_path = foreign_path.replace("{%s}" % parameter.name,
                                            str(parameter.sandbox_example_id or foreign_clinic_ids[0]))
    nowhere_path = _UUID.sub(nowhere, foreign_path)
    nowhere_body = _UUID.sub(nowhere, body) if body else None
    return (foreign_path, body), (nowhere_path, nowhere_body)


def test_writes_naming_another_clinic_s_records_answer_like_missing_ones_and_change_nothing(app, testapp, world,
                                                                                          engine):
    own, other = world.clinic("Own"), world.clinic("Other, seeded like a sandbox", seed=True)
    workspace_id, _ = world.workspace()
    world.grant(workspace_id, own, ALL_PERMISSIONS)
    keys = {"clinic key": world.key(clinic_id=own), "connected live key": world.key(workspace_id=workspace_id,
                                                                                     mode="live")}
    writes = [op for op in operations(app.registry) if op.method in ("POST", "PATCH", "DELETE") and op.node.in_clinic]
    before = {clinic: _snapshot(engine, clinic) for clinic in (own, other)}
    checked = []
    for op in writes:
        requests = _write_requests(op, [other])
        if requests is None:
            continue
        for kind, key in keys.items():
            outcomes = []
            for path, body in requests:
                url = path.replace("{clinic_id}", str(own))
                headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}
                if body is not None:
                    headers["Content-Type"] = "application/json"
                response = testapp.request(url, method=op.method, body=(body or "").encode(), headers=headers,
                                           expect_errors=True)
                assert 400 <= response.status_int < 500, f"{kind} {op.method} {url}: {response.text}"
                outcomes.append(_problem(response))
            assert outcomes[0] == outcomes[1], f"{kind} {op.method} {op.path}: {outcomes} (foreign, nowhere)"
            checked.append((op.method, op.path, kind, outcomes[0]))
    assert len({(m, p) for m, p, _, _ in checked}) >= 15, checked
    assert {clinic: _snapshot(engine, clinic) for clinic in (own, other)} == before
