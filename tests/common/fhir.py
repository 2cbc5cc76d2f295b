"""FHIR answers are checked against the R4 models of `fhir.resources` (its R4B subpackage: the 4.x release
line the package ships; the top-level package is R5)."""

from fhir.resources.R4B import get_fhir_model_class


def _without_nulls(value, pointer=""):
    """FHIR JSON never carries null (R4 §2.6.2); the models would accept None as absent."""
    assert value is not None, f"null at {pointer or '/'}"
    if isinstance(value, dict):
        for key, item in value.items():
            _without_nulls(item, f"{pointer}/{key}")
    elif isinstance(value, list):
        assert value, f"empty array at {pointer}"
        for index, item in enumerate(value):
            _without_nulls(item, f"{pointer}/{index}")


def assert_valid_fhir(resource, resource_type=None):
    """Validate one FHIR R4 resource dict (a Bundle's entries included); returns the parsed model."""
    assert isinstance(resource, dict) and isinstance(resource.get("resourceType"), str), resource
    if resource_type is not None:
        assert resource["resourceType"] == resource_type
    _without_nulls(resource)
    model = get_fhir_model_class(resource["resourceType"]).model_validate(resource)
    if resource["resourceType"] == "Bundle":
        for entry in resource.get("entry", []):
            assert_valid_fhir(entry["resource"])
    return model
