"""Contract testing: schemathesis generates requests for every documented operation and sends them through
the WSGI application (no network) on the embedded database, with a sandbox test key. Every answer must be
documented: no 5xx, a documented status, the documented content type, headers and body schema.

The number of examples per operation is CLINICRECORDS_CONTRACT_EXAMPLES (small in the ordinary suite;
`scripts/contract` runs more, CI a bounded number after the suite)."""

import os

import hypothesis
import pytest
import schemathesis
from schemathesis import checks

from tests.common.fhir import assert_valid_fhir

FHIR = "application/fhir+json"

CONTRACT_CHECKS = [checks.not_a_server_error, checks.status_code_conformance, checks.content_type_conformance,
                   checks.response_headers_conformance, checks.response_schema_conformance]
FHIR_ANSWERS = []  # proves the FHIR validation ran
MAX_EXAMPLES = int(os.environ.get("CLINICRECORDS_CONTRACT_EXAMPLES", "5"))


@pytest.fixture(scope="module")
def sandbox(app):
    from tests.common.world import World

    world = World(app.registry)
    workspace_id, sandbox_clinic_id = world.workspace("Contract Tests")
    return sandbox_clinic_id, world.key(workspace_id=workspace_id, mode="test")


def _fill_path(case, sandbox_clinic_id):
    """The sandbox clinic of this key, and the seed's fixed ids where the document gives them, so requests
    reach records instead of stopping at 403/404; everything else is generated."""
    parameters = {p["name"]: p for p in case.operation.definition.raw.get("parameters", []) if p["in"] == "path"}
    for name in case.path_parameters or {}:
        if name == "clinic_id":
            case.path_parameters[name] = str(sandbox_clinic_id)
        elif "example" in parameters.get(name, {}):
            case.path_parameters[name] = parameters[name]["example"]


def _describe(exc):
    if isinstance(exc, BaseExceptionGroup):
        return "\n".join(_describe(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def _answers_fhir(operation):
    success = [r for status, r in operation.definition.raw["responses"].items() if status.startswith("2")]
    return any(FHIR in response.get("content", {}) for response in success)


def _run(operation, mode, sandbox_clinic_id, key, accept=None):
    headers = {"Authorization": f"Bearer {key}", **({"Accept": accept} if accept else {})}

    @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
    @hypothesis.settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, derandomize=True,
                         suppress_health_check=list(hypothesis.HealthCheck), print_blob=True)
    def run(case):
        _fill_path(case, sandbox_clinic_id)
        response = case.call_and_validate(headers=headers, checks=CONTRACT_CHECKS)
        if response.headers.get("content-type", [""])[0].startswith(FHIR):
            assert_valid_fhir(response.json())
            FHIR_ANSWERS.append(operation.label)

    run()


# Hundreds of requests, the sandbox resets among them each building a clinic schema: inside one outer
# transaction their locks would add up past max_locks_per_transaction, as they never do in production.
@pytest.mark.commits
def test_every_answer_is_documented(app, sandbox):
    sandbox_clinic_id, key = sandbox
    schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", app)
    failures, labels = [], []
    for result in schema.get_all_operations():
        operation = result.ok()
        labels.append(operation.label)
        # Valid requests (answered 2xx or a documented refusal) and invalid ones (a documented 4xx).
        runs = [(mode, None) for mode in schemathesis.GenerationMode]
        if _answers_fhir(operation):  # and every FHIR answer validates against the R4 models
            runs.append((schemathesis.GenerationMode.POSITIVE, FHIR))
        raw = operation.definition.raw
        if not raw.get("parameters") and "requestBody" not in raw:  # no input to make invalid (/v1/docs)
            runs = [(mode, accept) for mode, accept in runs if mode != schemathesis.GenerationMode.NEGATIVE]
        for mode, accept in runs:
            try:
                _run(operation, mode, sandbox_clinic_id, key, accept)
            except (Exception, BaseExceptionGroup) as exc:  # every operation runs; all failures reported together
                failures.append(f"{operation.label} ({mode.value}, {accept or 'json'}): {_describe(exc)}")
    assert not failures, "\n\n".join(failures)
    # schemathesis leaves out the operation its schema was loaded from (tests/api/test_openapi.py covers it).
    documented = [f"{m.upper()} {p}" for p, ms in schema.raw_schema["paths"].items() for m in ms]
    assert sorted(labels) == sorted(set(documented) - {"GET /v1/openapi.json"})
    assert "GET /v1/clinics/{clinic_id}/patients" in FHIR_ANSWERS
    assert not failures, "\n\n".join(failures)
