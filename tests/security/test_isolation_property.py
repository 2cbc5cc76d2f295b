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

from pyramid.security import NO_PERMISSION_REQUIRED
from sqlalchemy import inspect, text

from clinicrecords.access.interfaces import ALL_PERMISSIONS
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
    # A public path under a clinic (the FHIR base's metadata) answers every clinic id alike, to anyone:
    # test_fhir_outcomes holds it to that.
    routes = [op for op in operations(app.registry)
              if op.method == "GET" and op.node.in_clinic and op.permission != NO_PERMISSION_REQUIRED]
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


# Answers that would say the key cannot reach or may not write: once past reach and scope, a write may still be
# refused by the record's own rules (a referral only its sender changes, a draft only the app that opened it,
# a contact the clinic manages), which their contexts' tests check; never with one of these.
_REACH_AND_SCOPE_CODES = frozenset({"invalid_key", "ip_not_allowed", "sandbox_only", "not_verified",
                                    "workspace_plan_required", "not_found", "scope_missing"})


_REQUEST_ID = re.compile(r"req_[0-9a-f]+")


def _problem(response):
    """The whole problem body but its request id, with record ids masked (the two variants name different
    ids): status, code, detail and every error's pointer and message must match."""
    problem = {name: value for name, value in response.json.items() if name != "request_id"}
    text = _REQUEST_ID.sub("<request id>", json.dumps(problem, sort_keys=True))  # an OperationOutcome's diagnostics
    return response.status_int, _UUID.sub("<id>", text)


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


# Writes, by property -------------------------------------------------------------------------------------------

WRITE_KINDS = ("clinic_key", "live_connected", "live_narrowed", "live_revoked_connection", "live_unverified",
               "test_key", "revoked_key")


def _addressable_writes(registry):
    """Every write route of a clinic whose record parameters name a seeded record (`sandbox_example_id`), so
    each can be sent at a record of the key's own clinic, of another clinic, and of none."""
    return [op for op in operations(registry)
            if op.method in ("POST", "PATCH", "DELETE") and op.node.in_clinic and op.permission in ALL_PERMISSIONS
            and all(p.sandbox_example_id for p in op.node.parameters if p.name != "clinic_id")]


def _example_request(op, clinic_id, rename=None):
    """(url, body): the route's documented example (seeded record ids in its path and body) sent through
    `clinic_id`; `rename` (a re.sub replacement) swaps every record id for another."""
    path = op.path
    for parameter in op.node.parameters:
        if parameter.name != "clinic_id":
            path = path.replace("{%s}" % parameter.name, str(parameter.sandbox_example_id))
    example = getattr(op.options.get("body_schema"), "EXAMPLE", None)
    body = json.dumps(example) if example is not None else None
    if rename is not None:
        path, body = _UUID.sub(rename, path), (_UUID.sub(rename, body) if body else None)
    return path.replace("{clinic_id}", str(clinic_id)), body


def _nowhere():
    renamed = {}
    return lambda match: renamed.setdefault(match.group(0), str(uuid.uuid4()))


def _names_records(op):
    url, body = _example_request(op, uuid.uuid4())
    return bool(_UUID.search(url.split("/", 4)[-1]) or (body and _UUID.search(body)))


def _reach_refusal(kind):
    """What the spec prescribes for a clinic the key does not reach (Authentication → Failures, Reach)."""
    return {"revoked_key": (401, "invalid_key"), "test_key": (403, "sandbox_only"),
            "live_unverified": (403, "not_verified")}.get(kind, (404, "not_found"))


def test_writes_by_property_answer_by_reach_and_scope_and_refusals_change_nothing(app, testapp, world, engine):
    """Generated keys of every kind send a generated write route's documented example at a record of their own
    clinic (seeded like a sandbox), at another clinic's records through their own (unseeded) clinic, at a
    clinic they do not reach, and at ids and clinics that exist nowhere. The oracle:

    - a clinic the key does not reach answers as the spec prescribes for the key (401 invalid_key, 403
      sandbox_only, 403 not_verified, else 404 not_found), exactly like a clinic that does not exist;
    - another clinic's record ids answer exactly like ids that exist nowhere (status, code, detail, pointers);
    - the key's own record: a clinic-key-only route answers 404 to an organization key; a permission the key
      (and its connection) does not grant answers 403 scope_missing; otherwise the write succeeds (the
      documented 2xx for a route with a body; for a body-less one anything but a reach, scope or missing-record
      refusal, e.g. a business 409);
    - every refused write changes nothing in any clinic involved (every table but the audit log, the change
      feed included: each real clinic has a webhook, so events would be recorded), and a successful one
      changes no other clinic.
    """
    other = world.clinic("Another clinic, seeded like a sandbox", seed=True)
    world.webhook(clinic_id=other)
    writes = _addressable_writes(app.registry)
    assert len(writes) >= 20, [op.path for op in writes]
    permissions = sorted(ALL_PERMISSIONS)
    seen = set()

    def make_key(kind, key_scopes, connection_scopes, seeded):
        """(full key, the key's clinic, whether the key reaches it, the permissions granted there, org key)."""
        if kind == "test_key":
            workspace_id, sandbox_id = world.workspace()
            return world.key(workspace_id=workspace_id, mode="test", scopes=key_scopes), sandbox_id, True, \
                key_scopes, True
        clinic = world.clinic("The key's clinic", seed=seeded)
        world.webhook(clinic_id=clinic)
        if kind in ("clinic_key", "revoked_key"):
            key_id, key = world.key_row(clinic_id=clinic, scopes=key_scopes)
            if kind == "revoked_key":
                world.revoke_key(key_id)
            return key, clinic, kind == "clinic_key", key_scopes, False
        workspace_id, _ = world.workspace(verified=kind != "live_unverified")
        world.grant(workspace_id, clinic, ALL_PERMISSIONS if kind == "live_narrowed" else connection_scopes)
        key = world.key(workspace_id=workspace_id, mode="live", scopes=key_scopes)
        if kind == "live_narrowed":  # the clinic narrows the grant after the key was made
            world.grant(workspace_id, clinic, connection_scopes)
        if kind == "live_revoked_connection":
            world.revoke_connection(workspace_id, clinic)
        reaches = kind in ("live_connected", "live_narrowed")
        return key, clinic, reaches, key_scopes & connection_scopes, True

    @settings(max_examples=30, deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    # Kinds that reach their clinic are drawn twice as often: they are the ones that get past reach.
    @given(kind=st.sampled_from(WRITE_KINDS + ("clinic_key", "live_connected", "live_narrowed")),
           target=st.sampled_from(("own", "foreign")),
           ops=st.lists(st.sampled_from(writes), min_size=6, max_size=8, unique_by=lambda op: (op.method, op.path)),
           holds=st.sampled_from((True, True, False)), key_extra=st.frozensets(st.sampled_from(permissions)),
           connection_holds=st.sampled_from((True, True, False)),
           connection_extra=st.frozensets(st.sampled_from(permissions)))
    def check(kind, target, ops, holds, key_extra, connection_holds, connection_extra):
        # The first route is the one sent at the key's own record (a success may change that clinic, so only
        # one); its permission is held, or missing, on purpose. Every route gets the refusal checks.
        permission = str(ops[0].permission)
        key_scopes = (key_extra | {permission}) if holds else (key_extra - {permission})
        connection_scopes = (connection_extra | {permission}) if connection_holds else connection_extra - {permission}
        if kind == "test_key":
            target = "own"  # a sandbox holds the seeded ids itself: no foreign case
        key, clinic, reaches, granted, organization = make_key(kind, frozenset(key_scopes),
                                                               frozenset(connection_scopes), target == "own")
        involved = (clinic, other)

        def send(op, url, body):
            headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}
            if body is not None:
                headers["Content-Type"] = "application/json"
            response = testapp.request(url, method=op.method, body=(body or "").encode(), headers=headers,
                                       expect_errors=True)
            assert response.status_int < 500, f"{kind} {op.method} {url}: {response.text}"
            return response

        def refused(op, response, expected=None):
            assert 400 <= response.status_int < 500, f"{kind} {op.method} {response.request.url}: {response.text}"
            if expected is not None:
                assert _outcome(response) == expected, f"{kind} {op.method} {op.path}: {response.text}"
            return _problem(response)

        before = {c: _snapshot(engine, c) for c in involved}
        for op in ops:
            # A clinic out of reach (with its own records) answers like a clinic that exists nowhere.
            out_of_reach = refused(op, send(op, *_example_request(op, other)), _reach_refusal(kind))
            assert out_of_reach == refused(op, send(op, *_example_request(op, uuid.uuid4(), _nowhere()))), \
                (kind, op.path)
            seen.add((op.method, op.path, "out of reach"))
            if not reaches:
                refused(op, send(op, *_example_request(op, clinic)), _reach_refusal(kind))
            elif target == "foreign" and _names_records(op):  # the key's clinic holds none of the seeded records
                foreign = refused(op, send(op, *_example_request(op, clinic)))
                assert foreign == refused(op, send(op, *_example_request(op, clinic, _nowhere()))), (kind, op.path)
                seen.add((op.method, op.path, "foreign"))
        assert {c: _snapshot(engine, c) for c in involved} == before, f"{kind} {[op.path for op in ops]} changed data"
        op = ops[0]
        if not reaches or target != "own":
            return
        if organization and op.doc.get("clinic_key_only"):
            refused(op, send(op, *_example_request(op, clinic)), (404, "not_found"))
        elif permission not in granted:
            refused(op, send(op, *_example_request(op, clinic)), (403, "scope_missing"))
        else:
            response = send(op, *_example_request(op, clinic))
            if 400 <= response.status_int < 500:
                assert _outcome(response)[1] not in _REACH_AND_SCOPE_CODES, f"{kind} {op.path}: {response.text}"
                assert {c: _snapshot(engine, c) for c in involved} == before, f"{kind} {op.path} changed data"
                seen.add((op.method, op.path, "refused by the record's own rule"))
                return
            if op.options.get("body_schema") is not None:
                assert 200 <= response.status_int < 300, f"{kind} {op.method} {op.path}: {response.text}"
            else:
                assert response.status_int not in (401, 403, 404), f"{kind} {op.method} {op.path}: {response.text}"
            seen.add((op.method, op.path, "succeeded"))
            assert _snapshot(engine, other) == before[other], f"{kind} {op.method} {op.path} changed another clinic"
            return
        assert {c: _snapshot(engine, c) for c in involved} == before, f"{kind} {op.method} {op.path} changed data"
        seen.add((op.method, op.path, "refused own"))

    check()
    assert {outcome for _, _, outcome in seen} >= {"out of reach", "foreign"}, seen
