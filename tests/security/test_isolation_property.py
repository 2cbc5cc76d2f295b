"""Isolation, by property: generated keys of every kind, with random scopes and revocations, call every
registered GET route of a clinic. The oracle is the spec's reach rules:

- no answer ever shows a record of a clinic the key cannot reach;
- "does not exist" and "not yours" answer alike: another clinic's record id and a random id, another
  clinic and a clinic that does not exist, get the same status and code.
"""

import re
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinicrecords.access.permissions import ALL_PERMISSIONS
from clinicrecords.api.routes import operations
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
