"""Every operation of docs/openapi.json has a dedicated client method, and that method calls that route."""

import inspect
import json
import re
from pathlib import Path

import httpx
import pytest

from clinicrecords.inventory.schemas import SANDBOX_ITEM_IDS
from clinicrecords_client import Client, Conflict, InvalidRequest
from clinicrecords_client.client import OPERATIONS

DOCUMENT = json.loads((Path(__file__).resolve().parents[2] / "docs" / "openapi.json").read_text())
METHODS = ("get", "post", "patch", "put", "delete")
CLINIC, RECORD = "00000000-0000-4000-8000-0000000000c1", "00000000-0000-4000-8000-0000000000e1"


def _operations():
    return {operation["operationId"]: (method.upper(), path)
            for path, item in DOCUMENT["paths"].items()
            for method, operation in item.items() if method in METHODS}


def _resolve(client, dotted):
    target = client
    for name in dotted.split("."):
        target = target.clinic(CLINIC) if name == "clinic" and target is client else getattr(target, name)
    return target


def _arguments(method):
    placeholders = {"body": {}, "data": [], "kind": "allergy", "status": "accepted", "quantity": 1}
    return [RECORD if name.endswith("_id") and name != "clinic_id" else CLINIC if name == "clinic_id"
            else placeholders[name]
            for name, parameter in inspect.signature(method).parameters.items()
            if parameter.default is parameter.empty and parameter.kind is parameter.POSITIONAL_OR_KEYWORD]


def test_every_operation_has_a_dedicated_client_method():
    operations = _operations()
    missing = sorted(set(operations) - set(OPERATIONS))
    stale = sorted(set(OPERATIONS) - set(operations))
    assert not missing, f"operations without a client method: {missing}"
    assert not stale, f"client methods for operations that no longer exist: {stale}"


@pytest.mark.parametrize(("operation_id", "route"), sorted(_operations().items()))
def test_the_method_calls_its_route(operation_id, route):
    sent = []

    def answer(request):
        sent.append((request.method, request.url.path, request.headers.get("Idempotency-Key")))
        return httpx.Response(200, json={"data": {"result": {}}, "events": [], "next_after": 0,
                                         "has_more": False, "next_cursor": None})

    with Client("http://localhost", "ehr_test_x_y", transport=httpx.MockTransport(answer)) as api:
        method = _resolve(api, OPERATIONS[operation_id])
        assert callable(method) and method.__name__ not in ("request", "paginate")
        result = method(*_arguments(method))
        if inspect.isgenerator(result):
            list(result)
    expected_method, template = route
    expected_path = re.sub(r"\{[a-z_]+\}", lambda m: CLINIC if m.group() == "{clinic_id}" else RECORD,
                           template)
    assert [(m, p) for m, p, _ in sent] == [(expected_method, expected_path)]
    assert (sent[0][2] is not None) == (expected_method in ("POST", "PATCH", "DELETE"))


@pytest.fixture
def api(app, world):
    workspace_id, clinic_id = world.workspace()
    with Client("http://localhost", world.key(workspace_id=workspace_id, mode="test"),
                transport=httpx.WSGITransport(app=app)) as client:
        yield client, client.clinic(clinic_id)


def _example(document, path, method="post"):
    return document["paths"][path][method]["requestBody"]["content"]["application/json"]["example"]


def test_reference_search_listings_and_payment_advices(api):
    client, clinic = api
    document = client.openapi()
    assert document["paths"].keys() == DOCUMENT["paths"].keys()
    assert "<redoc" in client.reference_page().lower() and "redoc" in client.reference_script().lower()

    found = client.listings.search("amoxicilin", limit=5)
    assert found and all("band" in entry and "quantity" not in entry for entry in found)
    assert all(entry["clinic_id"] == str(clinic.clinic_id) for entry in found)
    by_code = client.listings.search(body=_example(document, "/v1/listings/search"))
    assert {entry["item_id"] for entry in by_code} == {entry["item_id"] for entry in found}
    with pytest.raises(InvalidRequest):
        client.listings.search()  # neither a name nor a code
    pharmacies = list(client.listings.iterate_pharmacies())
    assert [p for p in pharmacies if p.get("clinic_id", p.get("id")) == str(clinic.clinic_id)]
    assert clinic.listing.profile()
    listed = list(clinic.listing.iterate_items(limit=1))
    assert len(listed) >= 2 and all("quantity" not in item for item in listed)

    body = _example(document, "/v1/clinics/{clinic_id}/insurance/payment-advices")
    first = clinic.payment_advices.create(body, idempotency_key="advice-1")
    again = clinic.payment_advices.create(body, idempotency_key="advice-1")
    assert first["data"]["status"] == "advised" and again["idempotent_replay"] is True
    assert again["data"]["id"] == first["data"]["id"]


def test_inventory_appointments_submissions_and_the_feed_page(api, world):
    client, clinic = api
    item_id = SANDBOX_ITEM_IDS["amoxicillin-500"]
    before = clinic.inventory_items.get(item_id)["quantity"]
    movement = clinic.inventory_items.record_movement(item_id, {"kind": "receipt", "quantity": 4})
    assert movement["quantity_after"] == before + 4
    ledger = list(clinic.inventory_items.iterate_movements(item_id, limit=2))
    assert ledger[-1]["id"] == movement["id"]
    batch = clinic.stock_batches.create({"items": [{"item_id": str(item_id), "quantity": 7}]})
    assert batch["id"] and clinic.inventory_items.get(item_id)["quantity"] == 7

    document = client.openapi()
    appointment = clinic.appointments.create(_example(document, "/v1/clinics/{clinic_id}/appointments"))
    cancelled = clinic.appointments.cancel(appointment["id"])
    assert cancelled["status"] == "cancelled"
    assert clinic.appointments.get(appointment["id"])["status"] == "cancelled"

    sent = clinic.allergies.create(_example(document, "/v1/clinics/{clinic_id}/allergies"))
    changed = clinic.submissions.change(sent["submission_id"], {"criticality": "low", "reactions": None})
    assert changed["review_status"] == "pending" and changed["payload"]["criticality"] == "low"
    assert "reactions" not in changed["payload"]
    assert clinic.submissions.withdraw(sent["submission_id"])["decision_reason"] == "withdrawn"
    with pytest.raises(Conflict) as refused:
        clinic.submissions.withdraw(sent["submission_id"])
    assert refused.value.code == "submission_not_pending"

    assert clinic.events_page() == {"events": [], "next_after": 0}  # nothing recorded without a webhook
