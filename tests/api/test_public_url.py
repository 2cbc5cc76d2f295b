"""Location and every absolute URL come from `api.base_url` when it is configured (production), never from
the Host header a client sends; without it (development) the request's own Host is kept."""

import uuid

import pytest
import webtest

from clinicrecords.api.public_url import parse_base_url
from clinicrecords.patients.schemas import PatientCreate
from clinicrecords.settings import SettingsError

BASE = "https://records.example.org/ehr"
HOSTILE_HOST = "attacker.example"
FHIR = "application/fhir+json"


def _create_patient(client, connected):
    headers = {**connected.headers, "Idempotency-Key": str(uuid.uuid4()), "Host": HOSTILE_HOST}
    return client.post_json(f"/v1/clinics/{connected.clinic_id}/patients", PatientCreate.EXAMPLE,
                            headers=headers, status=201)


@pytest.fixture
def public(make_app):
    return webtest.TestApp(make_app(**{"api.base_url": BASE + "/"}), extra_environ={"REMOTE_ADDR": "127.0.0.1"})


def test_location_comes_from_the_base_url_not_the_host_header(public, connected):
    created = _create_patient(public, connected)
    patient_id = created.json["data"]["id"]
    assert created.headers["Location"] == f"{BASE}/v1/clinics/{connected.clinic_id}/patients/{patient_id}"


def test_fhir_links_and_full_urls_come_from_the_base_url(public, connected):
    _create_patient(public, connected)
    _create_patient(public, connected)
    bundle = public.get(f"/v1/clinics/{connected.clinic_id}/patients?limit=1",
                        headers={**connected.headers, "Accept": FHIR, "Host": HOSTILE_HOST}).json
    urls = [link["url"] for link in bundle["link"]] + [entry["fullUrl"] for entry in bundle["entry"]]
    assert len(urls) == 3 and all(url.startswith(f"{BASE}/v1/clinics/{connected.clinic_id}/patients")
                                  for url in urls)


def test_without_a_base_url_development_keeps_the_host(testapp, connected):
    created = _create_patient(testapp, connected)
    assert created.headers["Location"].startswith(f"http://{HOSTILE_HOST}/v1/clinics/")


@pytest.mark.parametrize("value", ["records.example.org", "ftp://records.example.org", "https://",
                                   "https://records.example.org/?x=1", "https://user:pw@records.example.org"])
def test_a_base_url_that_is_not_one_stops_start_up(value):
    with pytest.raises(SettingsError, match="api.base_url"):
        parse_base_url(value)
