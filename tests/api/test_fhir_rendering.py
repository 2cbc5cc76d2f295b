"""Every FHIR type the API renders, checked against what `fhir.resources` reads out of it: each sandbox record,
rendered in a searchset page, validates against its R4 model, and the model writes back exactly the same
resource (no element it ignores or reshapes, none missing), timestamps aside (the models spell UTC `Z`)."""

import json

import pytest

from tests.common.fhir import assert_valid_fhir
from tests.conftest import ROOT

FHIR = "application/fhir+json"
COLLECTIONS = {  # the FHIR list route of each type (docs/openapi.json), in the sandbox clinic
    "allergies": "AllergyIntolerance", "conditions": "Condition", "medication-statements": "MedicationStatement",
    "referrals": "ServiceRequest", "encounters": "Encounter", "payers": "Organization", "coverages": "Coverage",
    "patients": "Patient", "prescriptions": "MedicationRequest", "providers": "Practitioner",
    "care-providers": "Practitioner",
}

# Kinds only the clinic's FHIR base answers, by search (no REST list of their own): a clinician's role.
FHIR_BASE_ONLY = {"provider_role": "PractitionerRole"}


def _utc_as_z(value):
    if isinstance(value, dict):
        return {key: _utc_as_z(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_utc_as_z(item) for item in value]
    return value.replace("+00:00", "Z") if isinstance(value, str) else value


def test_every_fhir_kind_has_a_collection_here(app):
    kinds = [kind for kind, shape in app.registry["api.representations"].items() if shape.fhir is not None]
    assert len(kinds) == len(COLLECTIONS) + len(FHIR_BASE_ONLY) and set(FHIR_BASE_ONLY) <= set(kinds)
    document = json.loads((ROOT / "docs" / "openapi.json").read_text())
    listed = {path.rsplit("/", 1)[1] for path, operations in document["paths"].items()
              if path.count("/") == 4 and FHIR in json.dumps(operations.get("get", {}).get("responses", {}))}
    assert listed == set(COLLECTIONS)


def _assert_sandbox_page_reads_back(world, testapp, path, query, fhir_type):
    """Each resource of the sandbox's searchset page at `path` validates as `fhir_type` and its model writes it
    back unchanged."""
    workspace_id, sandbox_id = world.workspace()
    headers = {"Authorization": f"Bearer {world.key(workspace_id=workspace_id, mode='test')}", "Accept": FHIR}
    bundle = testapp.get(f"/v1/clinics/{sandbox_id}/{path}", query, headers=headers).json
    assert_valid_fhir(bundle, "Bundle")
    resources = [entry["resource"] for entry in bundle["entry"]]
    assert resources, f"the sandbox seeds no {path}"
    for resource in resources:
        model = assert_valid_fhir(resource, fhir_type)
        assert json.loads(model.model_dump_json(by_alias=True, exclude_none=True)) == _utc_as_z(resource)


@pytest.mark.parametrize("collection", sorted(COLLECTIONS))
def test_rendered_resources_are_what_fhir_resources_reads(world, testapp, collection):
    _assert_sandbox_page_reads_back(world, testapp, collection, {"limit": 100}, COLLECTIONS[collection])


@pytest.mark.parametrize("fhir_type", sorted(FHIR_BASE_ONLY.values()))
def test_fhir_base_only_resources_are_what_fhir_resources_reads(world, testapp, fhir_type):
    # Searched on the FHIR base, the only place they are answered.
    _assert_sandbox_page_reads_back(world, testapp, f"fhir/{fhir_type}", {"_count": 100}, fhir_type)
