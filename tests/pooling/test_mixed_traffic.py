"""Mixed traffic through PgBouncer (transaction mode, three server connections) into a real waitress server
with eight threads and its own pool of three: nine concurrent clients across four clinics (two real clinics
with their own keys, two workspaces' sandboxes with test keys). Every answer holds only its own clinic's
data, none is a 5xx, and the service keeps answering: no request waits for a second connection while it
holds one (the deadlock of the report)."""

import json
import threading
import time
import urllib.error
import urllib.request
import uuid

import logging

import pytest

from clinicrecords.clinical.schemas import AllergyCreate
from clinicrecords.patients.schemas import PatientCreate
from tests.common.connections import ConnectionWatch
from tests.common.serving import serving

CLIENTS = 9
ROUNDS = 12
BOUND_SECONDS = 120


@pytest.fixture(scope="module")
def served(pooled_app):
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # a queue is expected: 9 clients, 8 threads
    watch = ConnectionWatch(pooled_app.registry["db.engine"])
    with serving(watch.wrap(pooled_app), threads=8) as base_url:
        yield base_url, watch
    watch.close()


def _call(base_url, key, method, path, body=None, idempotency_key=None):
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base_url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class Tenant:
    """One clinic, a key that reaches it, and a family name no other tenant's patients carry."""

    def __init__(self, clinic_id, key, tag):
        self.clinic_id, self.key, self.tag = clinic_id, key, tag
        self.patients = []


def _tenants(world):
    def tag(name):  # appears in nothing but this tenant's own records
        return f"{name}{uuid.uuid4().hex[:8]}"

    tenants = []
    for name in ("Alpha", "Bravo"):
        clinic_id = world.clinic(f"Clinic {name}")
        tenants.append(Tenant(clinic_id, world.key(clinic_id=clinic_id), tag(name)))
    for name in ("Charlie", "Delta"):
        workspace_id, sandbox_id = world.workspace(f"Workspace {name}")
        tenants.append(Tenant(sandbox_id, world.key(workspace_id=workspace_id, mode="test"), tag(name)))
    return tenants


def _client(base_url, tenant, others, failures):
    """One partner's traffic: create, list, read, send, feed, me; each answer checked for other tenants."""
    prefix = f"/v1/clinics/{tenant.clinic_id}"

    def check(status, body, what, expected):
        text = json.dumps(body)
        if status >= 500 or status != expected:
            failures.append(f"{tenant.tag} {what}: {status} {text[:200]}")
        for other in others:
            if other.tag in text or str(other.clinic_id) in text or other.key.split("_")[2] in text:
                failures.append(f"{tenant.tag} {what} shows {other.tag}'s data: {text[:200]}")

    for round_number in range(ROUNDS):
        patient = dict(PatientCreate.EXAMPLE, given_name=f"{tenant.tag}{round_number}", family_name=tenant.tag)
        status, body = _call(base_url, tenant.key, "POST", f"{prefix}/patients", patient, str(uuid.uuid4()))
        check(status, body, "create patient", 201)
        if status != 201:
            continue
        patient_id = body["data"]["id"]
        tenant.patients.append(patient_id)
        status, body = _call(base_url, tenant.key, "GET", f"{prefix}/patients?limit=100")
        check(status, body, "list patients", 200)
        status, body = _call(base_url, tenant.key, "GET", f"{prefix}/patients/{patient_id}")
        check(status, body, "read patient", 200)
        if status == 200 and body["data"]["family_name"] != tenant.tag:
            failures.append(f"{tenant.tag} read another patient: {body}")
        foreign = next((o.patients[-1] for o in others if o.patients), None)
        if foreign:
            status, body = _call(base_url, tenant.key, "GET", f"{prefix}/patients/{foreign}")
            check(status, body, "read another clinic's patient id", 404)
        allergy = dict(AllergyCreate.EXAMPLE, patient_id=patient_id, client_reference=str(uuid.uuid4()))
        status, body = _call(base_url, tenant.key, "POST", f"{prefix}/allergies", allergy, str(uuid.uuid4()))
        check(status, body, "send allergy", 202)
        status, body = _call(base_url, tenant.key, "GET", f"{prefix}/events?limit=10")
        check(status, body, "read feed", 200)
        status, body = _call(base_url, tenant.key, "GET", "/v1/me")
        check(status, body, "me", 200)


def test_nine_clients_through_a_pool_of_three_see_only_their_own_clinic(served, world):
    base_url, watch = served
    tenants = _tenants(world)
    failures = []
    threads = []
    for number in range(CLIENTS):
        tenant = tenants[number % len(tenants)]
        others = [other for other in tenants if other is not tenant]
        threads.append(threading.Thread(target=_client, args=(base_url, tenant, others, failures), daemon=True))
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(1, BOUND_SECONDS - (time.monotonic() - started)))
    assert not any(thread.is_alive() for thread in threads), "clients still waiting: the service stopped answering"
    assert failures == []
    assert sum(len(tenant.patients) for tenant in tenants) == CLIENTS * ROUNDS
    watch.assert_one_at_a_time()
    # and it still answers at once afterwards
    assert _call(base_url, tenants[0].key, "GET", "/v1/me")[0] == 200
