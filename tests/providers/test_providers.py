import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.providers.models import Provider
from clinicrecords.providers.npi import is_valid_npi, npi_check_digit
from clinicrecords.providers.schemas import SANDBOX_PROVIDER_IDS
from tests.common.clinical import admin, clinic_db, headers, sandbox

FIELDS = {"id", "name", "given_name", "family_name", "role", "specialties", "npi", "licences", "created_at",
          "updated_at"}


@pytest.mark.parametrize("npi, valid", [("1234567893", True), ("1234567890", False), ("123456789", False),
                                        ("12345678931", False), ("12345678a3", False), ("١٢٣٤٥٦٧٨٩٣", False)])
def test_npi_check_digit(npi, valid):
    assert is_valid_npi(npi) is valid


def test_sandbox_lists_the_seeded_clinicians_without_contact_details_or_verified_flag(world, testapp):
    clinic_id, key = sandbox(world)
    listed = testapp.get(f"/v1/clinics/{clinic_id}/providers", headers=headers(key)).json["data"]
    assert sorted(p["id"] for p in listed) == sorted(map(str, SANDBOX_PROVIDER_IDS))
    for provider in listed:
        assert set(provider) == FIELDS
        assert is_valid_npi(provider["npi"])
    one = testapp.get(f"/v1/clinics/{clinic_id}/providers/{SANDBOX_PROVIDER_IDS[0]}", headers=headers(key)).json
    assert one["data"]["name"] == "Imani Achterberg" and one["data"]["licences"][0]["jurisdiction"] == "MA"


def test_fhir_practitioner(world, testapp):
    clinic_id, key = sandbox(world)
    response = testapp.get(f"/v1/clinics/{clinic_id}/providers/{SANDBOX_PROVIDER_IDS[2]}",
                           headers=headers(key, Accept="application/fhir+json"))
    resource = response.json
    assert resource["resourceType"] == "Practitioner"
    assert resource["identifier"] == [{"system": "http://hl7.org/fhir/sid/us-npi",
                                       "value": resource["identifier"][0]["value"]}]
    assert "telecom" not in resource and resource["name"][0]["family"] == "Castellanos"
    bundle = testapp.get(f"/v1/clinics/{clinic_id}/providers", headers=headers(key, Accept="application/fhir+json"))
    assert {e["resource"]["resourceType"] for e in bundle.json["entry"]} == {"Practitioner"}


def test_clinicians_are_read_only_and_need_providers_read(world, testapp):
    clinic_id, key = sandbox(world)
    response = testapp.post_json(f"/v1/clinics/{clinic_id}/providers", {}, headers=headers(key), status=405)
    assert response.json["code"] == "method_not_allowed"
    testapp.get(f"/v1/clinics/{clinic_id}/providers/{uuid.uuid4()}", headers=headers(key), status=404)
    narrow = world.connected(scopes={"patients:read"})
    response = testapp.get(f"/v1/clinics/{narrow.clinic_id}/providers", headers=narrow.headers, status=403)
    assert response.json["code"] == "scope_missing"


def test_provider_add_command(world, testapp, connected):
    npi = "10000000" + "9" + str(npi_check_digit("100000009"))
    status, result, _ = admin("provider", "add", "--clinic", connected.clinic_id, "--given-name", "Ola",
                              "--family-name", "Berg", "--role", "physician", "--specialty", "dermatology",
                              "--npi", npi, "--licence", "MA:MD-1:2030-01-31")
    assert status == 0
    provider = testapp.get(f"/v1/clinics/{connected.clinic_id}/providers/{result['provider_id']}",
                           headers=connected.headers).json["data"]
    assert (provider["npi"], provider["specialties"], provider["licences"]) == (
        npi, ["dermatology"], [{"jurisdiction": "MA", "number": "MD-1", "expires_on": "2030-01-31"}])


@pytest.mark.parametrize("extra", [
    ("--npi", "1234567890"),
    ("--licence", "Massachusetts:1"),
    ("--licence", "MA:1:soon"),
    ("--role", "wizard"),
])
def test_provider_add_refuses_bad_input_and_changes_nothing(world, extra):
    clinic_id = world.clinic()
    argv = ["provider", "add", "--clinic", clinic_id, "--given-name", "A", "--family-name", "B",
            "--role", "nurse", *extra]
    status, result, _ = admin(*argv)
    assert status == 2 and result is None
    with clinic_db(world, clinic_id) as db:
        assert db.scalar(select(func.count()).select_from(Provider)) == 0


def test_provider_add_refuses_an_unknown_clinic():
    status, _, err = admin("provider", "add", "--clinic", uuid.uuid4(), "--given-name", "A", "--family-name", "B",
                           "--role", "nurse")
    assert status == 2 and "no clinic" in err
