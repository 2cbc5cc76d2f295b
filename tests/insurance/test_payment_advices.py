import copy
import json
import threading
import uuid
from decimal import Decimal

import pytest
import webtest
from sqlalchemy import select

from clinicrecords.insurance.claims import create_claim, link_insurer
from clinicrecords.insurance.models import Claim
from clinicrecords.insurance.schemas import SANDBOX_CLAIM_IDS, SANDBOX_PAYER_IDS, PaymentAdviceCreate
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.insurance.helpers import Caller, admin, sandbox_caller, staff

EXAMPLE = PaymentAdviceCreate.EXAMPLE


@pytest.fixture
def caller(world):
    return sandbox_caller(world)


def _post(testapp, caller, body, status=201, key=None):
    return testapp.post_json(caller.url("insurance/payment-advices"), body, headers=caller.write_headers(key),
                             status=status)


def _balances(world, clinic_id):
    with staff(world, clinic_id) as (db, _):
        return {c.id: (c.amount, c.outstanding, c.status) for c in db.scalars(select(Claim))}


def test_example_creates_an_advised_advice_with_exactly_the_spec_fields(world, testapp, caller):
    before = _balances(world, caller.clinic_id)
    response = _post(testapp, caller, EXAMPLE)
    advice = response.json["data"]
    assert set(response.json) == {"data"}
    assert set(advice) == {"id", "insurance_company_id", "paid_on", "amount", "currency", "method", "reference",
                           "status", "created_at", "allocations"}
    assert advice["status"] == "advised" and advice["currency"] == "USD"
    assert advice["insurance_company_id"] == str(SANDBOX_PAYER_IDS[0])
    # Exact decimals on the wire, in the currency's minor units.
    assert b'"amount":290.50' in response.body and b'"amount":40.50' in response.body
    assert advice["allocations"] == [{"claim_id": str(SANDBOX_CLAIM_IDS[0]), "amount": 250.0},
                                     {"claim_id": str(SANDBOX_CLAIM_IDS[1]), "amount": 40.5}]
    assert _balances(world, caller.clinic_id) == before


def test_replay_carries_idempotent_replay(testapp, caller):
    first = _post(testapp, caller, EXAMPLE, key="advice-1")
    second = _post(testapp, caller, EXAMPLE, key="advice-1")
    assert second.json["idempotent_replay"] is True
    assert second.json["data"] == first.json["data"]
    assert "idempotent_replay" not in first.json


def test_a_replay_is_the_first_answer_byte_for_byte_plus_the_flag(testapp, caller):
    first = _post(testapp, caller, EXAMPLE, key="advice-bytes")
    second = _post(testapp, caller, EXAMPLE, key="advice-bytes")
    assert second.body == first.body[:-1] + b',"idempotent_replay":true}'
    assert b'"amount":290.50' in second.body


def test_numbers_compare_by_value_in_a_retry(testapp, caller):
    """290.5, 290.50 and 290.500 are one amount; 250 and 250.00 too
    (docs/decisions/0028-careless-hostile-clients.md)."""
    _post(testapp, caller, EXAMPLE, key="advice-numbers")
    body = json.dumps(EXAMPLE).replace("290.5", "290.500").replace("250.0", "250").encode()
    assert b"290.500" in body and b"250.0" not in body
    retry = testapp.post(caller.url("insurance/payment-advices"), body, headers=caller.write_headers(
        "advice-numbers"), content_type="application/json", status=201)
    assert retry.json["idempotent_replay"] is True
    other = json.dumps(dict(EXAMPLE, amount="290.50")).encode()
    conflict = testapp.post(caller.url("insurance/payment-advices"), other, headers=caller.write_headers(
        "advice-numbers"), content_type="application/json", status=409)
    assert conflict.json["code"] == "idempotency_key_conflict"


def test_idempotency_key_is_required(testapp, caller):
    response = testapp.post_json(caller.url("insurance/payment-advices"), EXAMPLE, headers=caller.headers,
                                 status=400)
    assert "Idempotency-Key" in response.json["detail"]


def test_currency_may_be_omitted_and_allocations_too(testapp, caller):
    body = {k: v for k, v in EXAMPLE.items() if k not in ("currency", "allocations", "reference")}
    advice = _post(testapp, caller, body).json["data"]
    assert advice["currency"] == "USD" and advice["allocations"] == [] and advice["reference"] is None


def _without(name):
    body = copy.deepcopy(EXAMPLE)
    del body[name]
    return body


def _with(**changes):
    body = copy.deepcopy(EXAMPLE)
    body.update(changes)
    return body


def _allocations(*items):
    return _with(allocations=[dict(zip(("claim_id", "amount"), item)) for item in items])


CLAIM_1, CLAIM_2, CLAIM_PAID, CLAIM_OTHER_INSURER = map(str, SANDBOX_CLAIM_IDS)

CASES = {
    "insurance_company_id required": (_without("insurance_company_id"), ["/insurance_company_id"]),
    "insurance_company_id uuid": (_with(insurance_company_id="northwind"), ["/insurance_company_id"]),
    "insurance_company_id not the linked insurer": (_with(insurance_company_id=str(SANDBOX_PAYER_IDS[1]),
                                                          allocations=[]), ["/insurance_company_id"]),
    "paid_on required": (_without("paid_on"), ["/paid_on"]),
    "paid_on a date": (_with(paid_on="2025-02-30"), ["/paid_on"]),
    "amount required": (_without("amount"), ["/amount"]),
    "amount zero": (_with(amount=0, allocations=[]), ["/amount"]),
    "amount negative": (_with(amount=-5, allocations=[]), ["/amount"]),
    "amount a string": (_with(amount="290.50"), ["/amount"]),
    "amount a boolean": (_with(amount=True, allocations=[]), ["/amount"]),
    "amount beyond minor units": (_with(amount=290.505), ["/amount"]),
    "amount too large": (_with(amount=10 ** 15, allocations=[]), ["/amount"]),
    "currency too long": (_with(currency="U" * 11), ["/currency"]),
    "currency not the clinic's": (_with(currency="EUR"), ["/currency"]),
    "currency empty": (_with(currency=""), ["/currency"]),
    "method required": (_without("method"), ["/method"]),
    "method enum": (_with(method="cash"), ["/method"]),
    "reference too long": (_with(reference="r" * 201), ["/reference"]),
    "reference null": (_with(reference=None), ["/reference"]),
    "no other properties": (_with(status="recorded"), ["/status"]),
    "allocations an array": (_with(allocations={"claim_id": CLAIM_1}), ["/allocations"]),
    "allocations at most 500": (_with(allocations=[{"claim_id": CLAIM_1, "amount": 0.01}] * 501), ["/allocations"]),
    "allocation claim_id required": (_with(allocations=[{"amount": 1}]), ["/allocations/0/claim_id"]),
    "allocation claim_id uuid": (_with(allocations=[{"claim_id": "c1", "amount": 1}]), ["/allocations/0/claim_id"]),
    "allocation amount required": (_with(allocations=[{"claim_id": CLAIM_1}]), ["/allocations/0/amount"]),
    "allocation amount > 0": (_allocations((CLAIM_1, 0)), ["/allocations/0/amount"]),
    "allocation amount a number": (_allocations((CLAIM_1, "10")), ["/allocations/0/amount"]),
    "allocation no other properties": (_with(allocations=[{"claim_id": CLAIM_1, "amount": 1, "note": "x"}]),
                                       ["/allocations/0/note"]),
    "allocation item an object": (_with(allocations=["x"]), ["/allocations/0"]),
    "allocation beyond minor units": (_allocations((CLAIM_1, 10.001)), ["/allocations/0/amount"]),
    "allocation unknown claim": (_allocations((str(uuid.uuid4()), 10)), ["/allocations/0/claim_id"]),
    "allocation claim of another insurer": (_allocations((CLAIM_OTHER_INSURER, 10)), ["/allocations/0/claim_id"]),
    "allocation claim not awaiting payment": (_allocations((CLAIM_PAID, 10)), ["/allocations/0/claim_id"]),
    "allocation more than still owed": (dict(_allocations((CLAIM_1, 250), (CLAIM_2, 40.51)), amount=300),
                                        ["/allocations/1/amount"]),
    "allocation claim twice": (_allocations((CLAIM_1, 10), (CLAIM_1, 10)), ["/allocations/1/claim_id"]),
    "allocations sum more than amount": (_with(amount=100), ["/allocations"]),
}


@pytest.mark.parametrize("name", CASES)
def test_every_constraint_of_the_create_request(world, testapp, caller, name):
    body, pointers = CASES[name]
    before = _balances(world, caller.clinic_id)
    response = _post(testapp, caller, body, status=400)
    assert response.json["code"] == "invalid_request"
    assert sorted({e["pointer"] for e in response.json["errors"]}) == pointers
    assert _balances(world, caller.clinic_id) == before


def test_the_limits_themselves_are_accepted(testapp, caller):
    _post(testapp, caller, _with(amount=5, reference="r" * 200, allocations=[{"claim_id": CLAIM_1, "amount": 0.01}]))
    # Allocations adding up to exactly `amount`, each exactly what its claim still owes.
    _post(testapp, caller, dict(_allocations((CLAIM_1, 250), (CLAIM_2, 40.5)), amount=290.5))


def test_500_allocations_are_accepted(world, testapp, caller):
    with staff(world, caller.clinic_id) as (db, clinic):
        patient = SANDBOX_PATIENT_IDS[0]  # Northwind's confirmed, active coverage:1
        claim_ids = [str(create_claim(db, clinic, SANDBOX_PAYER_IDS[0], patient, "1.00").id) for _ in range(500)]
    body = _with(amount=500, allocations=[{"claim_id": c, "amount": 1} for c in claim_ids])
    assert len(_post(testapp, caller, body).json["data"]["allocations"]) == 500


def test_owed_amount_message_names_what_the_claim_still_owes(testapp, caller):
    response = _post(testapp, caller, _allocations((CLAIM_2, 41)), status=400)
    assert "40.50" in response.json["errors"][0]["message"]


def _real_clinic_with_insurer(world, currency):
    clinic_id = world.clinic(currency=currency, seed=True)
    workspace_id, _ = world.workspace()
    world.grant(workspace_id, clinic_id)
    key = world.key(workspace_id=workspace_id, mode="live")
    with staff(world, clinic_id) as (db, _):
        link_insurer(db, workspace_id, SANDBOX_PAYER_IDS[0])
    return Caller(clinic_id, workspace_id, key)


def test_zero_decimal_currency(world, testapp):
    caller = _real_clinic_with_insurer(world, "JPY")
    body = _with(currency="JPY", amount=1000, allocations=[{"claim_id": CLAIM_1, "amount": 250}])
    advice = _post(testapp, caller, body).json["data"]
    assert advice["currency"] == "JPY" and advice["amount"] == 1000
    response = _post(testapp, caller, _with(currency="JPY", amount=1000.5, allocations=[]), status=400)
    assert response.json["errors"] == [{"pointer": "/amount", "message": "JPY amounts have no decimal places."}]
    assert _post(testapp, caller, _with(currency="USD", amount=1000, allocations=[]),
                 status=400).json["errors"][0]["pointer"] == "/currency"


def test_a_clinic_key_has_no_linked_insurer(world, testapp):
    clinic_id = world.clinic(seed=True)
    caller = Caller(clinic_id, None, world.key(clinic_id=clinic_id))
    response = _post(testapp, caller, EXAMPLE, status=403)
    assert response.json["code"] == "insurer_not_linked"


def test_an_organization_without_a_link_is_refused(world, testapp, connected):
    caller = Caller(connected.clinic_id, connected.workspace_id, connected.key)
    response = _post(testapp, caller, EXAMPLE, status=403)
    assert response.json["code"] == "insurer_not_linked"


def test_needs_the_remittances_permission(world, testapp):
    caller = sandbox_caller(world, scopes={"payers:read"})
    response = _post(testapp, caller, EXAMPLE, status=403)
    assert response.json["code"] == "scope_missing" and "insurance.remittances:write" in response.json["detail"]


@pytest.mark.commits  # advices race from threads
def test_concurrent_advices_each_check_the_unchanged_balance(app, world, caller):
    """Two advices sent at the same moment, each allocating all that claim 1 still owes: an advice never
    consumes a balance, so both are checked against it, both are accepted, and the claim is untouched."""
    before = _balances(world, caller.clinic_id)
    body = _with(amount=250, allocations=[{"claim_id": CLAIM_1, "amount": 250}])
    barrier, results = threading.Barrier(2), []

    def send():
        client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
        barrier.wait()
        results.append(client.post_json(caller.url("insurance/payment-advices"), body,
                                        headers=caller.write_headers(), expect_errors=True))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [r.status_int for r in results] == [201, 201]
    assert len({r.json["data"]["id"] for r in results}) == 2
    assert _balances(world, caller.clinic_id) == before
    assert before[SANDBOX_CLAIM_IDS[0]][1] == Decimal("250.00")


def test_staff_record_and_decline_never_touch_claims(world, testapp, caller):
    before = _balances(world, caller.clinic_id)
    first = _post(testapp, caller, EXAMPLE).json["data"]["id"]
    second = _post(testapp, caller, EXAMPLE).json["data"]["id"]
    assert admin("payment-advice", "record", "--clinic", caller.clinic_id, first)[1] == {
        "advice_id": first, "status": "recorded"}
    assert admin("payment-advice", "decline", "--clinic", caller.clinic_id, second, "--reason",
                 "Duplicate of an earlier remittance")[1]["status"] == "declined"
    assert _balances(world, caller.clinic_id) == before
    for argv in [("record", first), ("decline", first), ("record", second),
                 ("record", str(uuid.uuid4())), ("decline", second, "--reason", " ")]:
        status, result, _ = admin("payment-advice", argv[0], "--clinic", caller.clinic_id, *argv[1:])
        assert status == 2 and result is None, argv


def test_claim_commands(world, caller):
    # Patient 4's Bluegate coverage is confirmed and active in the seed: claims need one.
    patient, payer = str(SANDBOX_PATIENT_IDS[3]), str(SANDBOX_PAYER_IDS[2])
    status, claim, _ = admin("claim", "create", "--clinic", caller.clinic_id, "--insurer", payer,
                             "--patient", patient, "--amount", "75.5")
    assert status == 0 and (claim["amount"], claim["outstanding"], claim["status"]) == (
        "75.50", "75.50", "awaiting_payment")
    paid = admin("claim", "pay", "--clinic", caller.clinic_id, claim["claim_id"], "--amount", "75.50")[1]
    assert (paid["outstanding"], paid["status"]) == ("0.00", "paid")
    listed = admin("claim", "list", "--clinic", caller.clinic_id, "--insurer", payer)[1]["claims"]
    assert {c["claim_id"]: c["outstanding"] for c in listed}[claim["claim_id"]] == "0.00"
    refused = [
        ("claim", "create", "--clinic", caller.clinic_id, "--insurer", payer, "--patient", patient, "--amount", "0"),
        ("claim", "create", "--clinic", caller.clinic_id, "--insurer", payer, "--patient", patient, "--amount", "x"),
        ("claim", "create", "--clinic", caller.clinic_id, "--insurer", payer, "--patient", patient,
         "--amount", "1.001"),
        ("claim", "create", "--clinic", caller.clinic_id, "--insurer", patient, "--patient", patient, "--amount", "1"),
        ("claim", "create", "--clinic", caller.clinic_id, "--insurer", payer, "--patient", payer, "--amount", "1"),
        ("claim", "pay", "--clinic", caller.clinic_id, CLAIM_2, "--amount", "40.51"),
        ("claim", "pay", "--clinic", caller.clinic_id, str(uuid.uuid4()), "--amount", "1"),
        ("insurer", "link", "--clinic", caller.clinic_id, "--workspace", str(uuid.uuid4()), "--insurer", payer),
        ("insurer", "link", "--clinic", caller.clinic_id, "--workspace", caller.workspace_id, "--insurer", patient),
        ("insurer", "link", "--clinic", str(uuid.uuid4()), "--workspace", caller.workspace_id, "--insurer", payer),
    ]
    before = _balances(world, caller.clinic_id)
    for argv in refused:
        status, result, _ = admin(*argv)
        assert status == 2 and result is None, argv
    assert _balances(world, caller.clinic_id) == before


def test_insurer_link_command_decides_which_insurer_may_advise(world, testapp, caller):
    status, link, _ = admin("insurer", "link", "--clinic", caller.clinic_id, "--workspace", caller.workspace_id,
                            "--insurer", SANDBOX_PAYER_IDS[2])
    assert status == 0 and link == {"workspace_id": str(caller.workspace_id),
                                    "insurer_id": str(SANDBOX_PAYER_IDS[2])}
    assert _post(testapp, caller, EXAMPLE, status=400).json["errors"][0]["pointer"] == "/insurance_company_id"
    body = _with(insurance_company_id=str(SANDBOX_PAYER_IDS[2]), amount=60,
                 allocations=[{"claim_id": CLAIM_OTHER_INSURER, "amount": 60}])
    _post(testapp, caller, body)


def test_a_staff_payment_reduces_what_an_advice_may_allocate(world, testapp, caller):
    assert admin("claim", "pay", "--clinic", caller.clinic_id, CLAIM_1, "--amount", "200")[0] == 0
    response = _post(testapp, caller, EXAMPLE, status=400)
    assert [e["pointer"] for e in response.json["errors"]] == ["/allocations/0/amount"]


def test_payment_advices_are_only_sent(testapp, caller):
    response = testapp.get(caller.url("insurance/payment-advices"), headers=caller.headers, status=405)
    assert response.headers["Allow"] == "POST"
    assert testapp.get(caller.url("insurance"), headers=caller.headers, status=404).json["code"] == "not_found"
