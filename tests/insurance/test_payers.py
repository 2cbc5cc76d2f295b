import pytest

from clinicrecords.insurance.models import Payer
from clinicrecords.insurance.schemas import SANDBOX_PAYER_IDS
from tests.insurance.helpers import admin, sandbox_caller, staff


@pytest.fixture
def caller(world):
    return sandbox_caller(world)


def _names(response):
    return [p["display_name"] for p in response.json["data"]]


def test_lists_only_enabled_payers_with_every_field(testapp, caller):
    response = testapp.get(caller.url("payers"), headers=caller.headers)
    assert _names(response) == ["Bluegate Dental Plan", "Northwind Health Assurance", "Société Mutuelle de Santé"]
    northwind = response.json["data"][1]
    assert northwind == {"id": str(SANDBOX_PAYER_IDS[0]), "display_name": "Northwind Health Assurance",
                         "primary_payer_id": "NWH01", "coverage_types": ["medical", "pharmacy"],
                         "operating_states": ["CA", "NY", "TX"]}
    assert response.json["has_more"] is False and response.json["next_cursor"] is None


@pytest.mark.parametrize("q", ["societe", "SOCIÉTÉ", "santé", "MUTUELLE de s", "Sante"])
def test_q_is_case_and_accent_insensitive(testapp, caller, q):
    response = testapp.get(caller.url("payers"), {"q": q}, headers=caller.headers)
    assert _names(response) == ["Société Mutuelle de Santé"]


def test_q_wildcards_are_literal_and_disabled_payers_never_match(testapp, caller):
    assert _names(testapp.get(caller.url("payers"), {"q": "%"}, headers=caller.headers)) == []
    assert _names(testapp.get(caller.url("payers"), {"q": "_"}, headers=caller.headers)) == []
    assert _names(testapp.get(caller.url("payers"), {"q": "legacy"}, headers=caller.headers)) == []


@pytest.mark.parametrize("params, pointer", [
    ({"q": "x" * 101}, "/q"), ({"q": ""}, "/q"), ({"limit": "0"}, "/limit"), ({"limit": "101"}, "/limit"),
    ({"starting_after": "forged"}, "/starting_after"), ({"name": "x"}, "/name"),
])
def test_bad_queries_are_400_with_a_pointer(testapp, caller, params, pointer):
    response = testapp.get(caller.url("payers"), params, headers=caller.headers, status=400)
    assert response.json["code"] == "invalid_request"
    assert [e["pointer"] for e in response.json["errors"]] == [pointer]


def test_q_of_100_characters_is_accepted(testapp, caller):
    testapp.get(caller.url("payers"), {"q": "x" * 100}, headers=caller.headers, status=200)


def test_pagination_walks_every_enabled_payer(testapp, caller):
    seen, params = [], {"limit": "1"}
    while True:
        page = testapp.get(caller.url("payers"), params, headers=caller.headers).json
        seen += [p["display_name"] for p in page["data"]]
        if not page["has_more"]:
            break
        params = {"limit": "1", "starting_after": page["next_cursor"]}
    assert seen == ["Bluegate Dental Plan", "Northwind Health Assurance", "Société Mutuelle de Santé"]


def test_read_one_and_a_disabled_payer_is_404(testapp, caller):
    one = testapp.get(caller.url(f"payers/{SANDBOX_PAYER_IDS[0]}"), headers=caller.headers).json["data"]
    assert one["primary_payer_id"] == "NWH01"
    response = testapp.get(caller.url(f"payers/{SANDBOX_PAYER_IDS[3]}"), headers=caller.headers, status=404)
    assert response.json["code"] == "not_found"


def test_fhir_searchset_bundle_of_organizations(testapp, caller):
    response = testapp.get(caller.url("payers"), {"limit": "2"},
                           headers={**caller.headers, "Accept": "application/fhir+json"})
    assert response.headers["Content-Type"] == "application/fhir+json; fhirVersion=4.0"
    bundle = response.json
    assert bundle["resourceType"] == "Bundle" and bundle["type"] == "searchset"
    assert {link["relation"] for link in bundle["link"]} == {"self", "next"}
    assert len(bundle["entry"]) == 2
    for entry in bundle["entry"]:
        resource = entry["resource"]
        assert resource["resourceType"] == "Organization"
        assert entry["fullUrl"].endswith(f"/payers/{resource['id']}")
        assert entry["search"] == {"mode": "match"}
        assert resource["active"] is True and resource["name"]
        assert resource["type"][0]["coding"][0]["code"] == "pay"
        assert resource["identifier"][0]["value"]
    one = testapp.get(caller.url(f"payers/{SANDBOX_PAYER_IDS[0]}"),
                      headers={**caller.headers, "Accept": "application/fhir+json"}).json
    assert one["resourceType"] == "Organization" and one["name"] == "Northwind Health Assurance"


def test_payers_need_the_permission(world, testapp):
    caller = sandbox_caller(world, scopes={"coverage:read"})
    response = testapp.get(caller.url("payers"), headers=caller.headers, status=403)
    assert response.json["code"] == "scope_missing" and "payers:read" in response.json["detail"]


def test_payer_add_enable_disable(world, testapp):
    caller = sandbox_caller(world)
    status, added, _ = admin("payer", "add", "--clinic", caller.clinic_id, "--name", "Østfold Forsikring",
                             "--primary-payer-id", "OST1", "--coverage-type", "medical", "--operating-state", "WA")
    assert status == 0 and added["enabled"] is False
    assert _names(testapp.get(caller.url("payers"), {"q": "ostfold"}, headers=caller.headers)) == []
    assert admin("payer", "enable", "--clinic", caller.clinic_id, added["payer_id"])[1]["enabled"] is True
    assert _names(testapp.get(caller.url("payers"), {"q": "ostfold"}, headers=caller.headers)) == [
        "Østfold Forsikring"]
    assert admin("payer", "disable", "--clinic", caller.clinic_id, added["payer_id"])[1]["enabled"] is False
    assert _names(testapp.get(caller.url("payers"), {"q": "ostfold"}, headers=caller.headers)) == []


def test_payer_commands_refuse_bad_input_and_change_nothing(world):
    caller = sandbox_caller(world)
    for argv in [
        ("payer", "add", "--clinic", caller.clinic_id, "--name", " ", "--primary-payer-id", "X"),
        ("payer", "add", "--clinic", caller.clinic_id, "--name", "X", "--primary-payer-id", "P" * 65),
        ("payer", "add", "--clinic", SANDBOX_PAYER_IDS[0], "--name", "X", "--primary-payer-id", "X"),
        ("payer", "add", "--clinic", caller.clinic_id, "--name", "X"),
        ("payer", "enable", "--clinic", caller.clinic_id, SANDBOX_PAYER_IDS[0].hex[:8]),
        ("payer", "enable", "--clinic", caller.clinic_id, caller.workspace_id),
    ]:
        status, result, _ = admin(*argv)
        assert status == 2 and result is None, argv
    with staff(world, caller.clinic_id) as (db, _):
        assert db.query(Payer).count() == 4
