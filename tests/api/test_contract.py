"""Contract testing: schemathesis runs every phase (examples, coverage, fuzzing, stateful) with every check
(`--checks all`: valid and invalid requests, undeclared methods, deleted resources, ...) over HTTP against the
application served on 127.0.0.1 (waitress, the embedded database), as a clinic's own key on a real clinic
seeded like a sandbox; the sandbox helpers, which only a test key reaches, with a sandbox test key. The
OpenAPI document and the server must agree: any disagreement fails the test except those listed in
`tests/api/contract_accepted.py`, each with the reason no schema can state the rule behind it.

The number of examples per operation and phase is CLINICRECORDS_CONTRACT_EXAMPLES (small in the ordinary
suite; `scripts/contract` runs more, CI a bounded number after the suite). FHIR answers validate against the
R4 models in a run of their own."""

import json
import os
from dataclasses import dataclass, field
from types import SimpleNamespace

import hypothesis
import pytest
import requests
import schemathesis
from schemathesis import checks
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, from_schema
from schemathesis.engine import events as engine_events
from schemathesis.generation import GenerationMode

from clinicrecords.clinical import terminology
from tests.api.contract_accepted import Finding, accepted_reason
from tests.common.fhir import assert_valid_fhir
from tests.common.serving import serving

FHIR = "application/fhir+json"
MAX_EXAMPLES = int(os.environ.get("CLINICRECORDS_CONTRACT_EXAMPLES", "5"))
SEED = 31
HELPERS = "^/v1/test_helpers/"
# A rejection of invalid input besides schemathesis's own list: a URL or headers over the server's limits
# (every operation declares 414 and 431) and a body over the route's limit (413).
REJECTIONS = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429", "431",
              "5xx"]


@pytest.fixture(scope="module")
def clinic(app):
    """A real clinic seeded like a sandbox (so the document's example ids name its records) and its own key."""
    from tests.common.world import World

    world = World(app.registry)
    clinic_id = world.clinic("Contract Clinic", seed=True)
    return clinic_id, world.key(clinic_id=clinic_id)


@pytest.fixture(scope="module")
def sandbox(app):
    from tests.common.world import World

    world = World(app.registry)
    workspace_id, sandbox_clinic_id = world.workspace("Contract Tests")
    return sandbox_clinic_id, world.key(workspace_id=workspace_id, mode="test")


def _config(clinic_id, key):
    config = SchemathesisConfig.from_dict({
        "seed": SEED,
        "suppress-health-check": ["all"],
        "headers": {"Authorization": f"Bearer {key}"},
        "parameters": {"path.clinic_id": str(clinic_id)},
        "workers": 1,
        "continue-on-failure": True,
        "checks": {"negative_data_rejection": {"expected-statuses": REJECTIONS}},
    })
    project = config.projects.override  # what the command line's options set
    project.checks.update(included_check_names=["all"])
    project.generation.update(modes=list(GenerationMode), max_examples=MAX_EXAMPLES, deterministic=True,
                              database="none")
    return config


@dataclass
class Run:
    """What one contract run found: every failed check, the engine's errors, and the operations it tested."""

    findings: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    tested: set = field(default_factory=set)


def _run(url, clinic_id, key, include=None, exclude=None):
    schema = schemathesis.openapi.from_url(f"{url}/v1/openapi.json", config=_config(clinic_id, key))
    if include:
        schema = schema.include(path_regex=include)
    if exclude:
        schema = schema.exclude(path_regex=exclude)
    run = Run()
    for event in from_schema(schema).execute():
        if isinstance(event, (engine_events.NonFatalError, engine_events.FatalError)):
            run.errors.append(f"{getattr(event, 'label', '')}: {getattr(event, 'value', None) or event.exception!r}")
        if not isinstance(event, (engine_events.ScenarioFinished, engine_events.FuzzScenarioFinished)):
            continue
        recorder = event.recorder
        for case_id, nodes in recorder.checks.items():
            case = recorder.cases[case_id].value
            run.tested.add(case.operation.label)
            for node in nodes:
                if node.status == Status.FAILURE and node.failure_info is not None:
                    interaction = recorder.interactions.get(case_id)
                    run.findings.append(Finding(node.name, case, node.failure_info.failure,
                                                interaction.request if interaction else None,
                                                interaction.response if interaction else None))
    return run


def _report(findings):
    return "\n".join(f"{finding.check} on {finding.label}: {finding.failure.title}\n    {finding.curl()}\n"
                     f"    -> {finding.answer()}" for finding in findings)


# Thousands of requests over a real server's threads, the sandbox resets among them each building a clinic
# schema: they commit for real (docs/contributing.md, Tests).
@pytest.mark.commits
def test_the_document_and_the_server_agree(app, clinic, sandbox):
    # The first ICD-10 check loads the whole code set (about 8 s of CPU), which the walk's 10 s read timeout
    # would count against the first condition it sends on a busy machine: loaded here, in the server's process,
    # before the walk. What is checked is the document and the server agreeing, not a cold start's latency.
    terminology.icd10("I10")
    with serving(app) as url:
        runs = [_run(url, *clinic, exclude=HELPERS), _run(url, *sandbox, include=HELPERS)]
        document = requests.get(f"{url}/v1/openapi.json", timeout=30).json()
    errors = [error for run in runs for error in run.errors]
    assert not errors, "\n".join(errors)
    unexplained = [finding for run in runs for finding in run.findings if accepted_reason(finding) is None]
    assert not unexplained, f"{len(unexplained)} disagreements:\n{_report(unexplained)}"
    documented = {f"{method.upper()} {path}" for path, methods in document["paths"].items() for method in methods}
    # schemathesis leaves out the operation its schema was loaded from (tests/api/test_openapi.py covers it).
    assert documented - set().union(*(run.tested for run in runs)) == {"GET /v1/openapi.json"}


CONTRACT_CHECKS = [checks.not_a_server_error, checks.status_code_conformance, checks.content_type_conformance,
                   checks.response_headers_conformance, checks.response_schema_conformance]


def _answers_fhir(operation):
    success = [r for status, r in operation.definition.raw["responses"].items() if status.startswith("2")]
    return any(FHIR in response.get("content", {}) for response in success)


def _fill_path(case, clinic_id):
    """This key's clinic, and the seed's fixed ids where the document gives them, so requests reach records."""
    parameters = {p["name"]: p for p in case.operation.definition.raw.get("parameters", []) if p["in"] == "path"}
    for name in case.path_parameters or {}:
        if name == "clinic_id":
            case.path_parameters[name] = str(clinic_id)
        elif "example" in parameters.get(name, {}):
            case.path_parameters[name] = parameters[name]["example"]


@pytest.mark.commits
def test_every_fhir_answer_validates(app, clinic):
    clinic_id, key = clinic
    schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", app)
    headers = {"Authorization": f"Bearer {key}", "Accept": FHIR}
    validated, failures = [], []
    for result in schema.get_all_operations():
        operation = result.ok()
        if not _answers_fhir(operation):
            continue

        @hypothesis.given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
        @hypothesis.settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, derandomize=True,
                             suppress_health_check=list(hypothesis.HealthCheck), print_blob=True)
        def run(case):
            _fill_path(case, clinic_id)
            response = case.call_and_validate(headers=headers, checks=CONTRACT_CHECKS)
            if response.headers.get("content-type", [""])[0].startswith(FHIR):
                assert_valid_fhir(response.json())
                validated.append(case.operation.label)

        try:
            run()
        except (Exception, BaseExceptionGroup) as exc:  # every operation runs; all failures reported together
            failures.append(f"{operation.label}: {exc}")
    assert not failures, "\n\n".join(failures)
    assert "GET /v1/clinics/{clinic_id}/patients" in validated


def _finding(check, status, errors=(), body=None, label="GET /v1/clinics/{clinic_id}/patients", headers=None):
    """A finding as the contract run records it, for the acceptance rules alone."""
    case = SimpleNamespace(operation=SimpleNamespace(label=label), headers=headers)
    content = json.dumps({"code": "invalid_request", "errors": list(errors)}).encode()
    return Finding(check, case, None, SimpleNamespace(body=body), SimpleNamespace(status_code=status, content=content))


CURSOR = {"pointer": "/starting_after", "location": "query", "message": "Not a cursor of this list, or expired: "
          "use next_cursor as given."}


def test_an_accepted_disagreement_never_hides_another_refusal():
    assert accepted_reason(_finding("positive_data_acceptance", 400, [CURSOR])) is not None
    # The same refusal with another beside it, on another check, or with another status: not accepted.
    limit = {"pointer": "/limit", "location": "query", "message": "Must be greater than or equal to 1."}
    assert accepted_reason(_finding("positive_data_acceptance", 400, [CURSOR, limit])) is None
    assert accepted_reason(_finding("negative_data_rejection", 400, [CURSOR])) is None
    assert accepted_reason(_finding("positive_data_acceptance", 422, [CURSOR])) is None
    assert accepted_reason(_finding("positive_data_acceptance", 400, [limit])) is None


def test_a_kickoff_outside_its_schema_is_accepted_only_when_it_asked_for_lenient_handling():
    kickoff = "GET /v1/clinics/{clinic_id}/fhir/$export"
    lenient = {"Prefer": "respond-async, handling=lenient"}
    assert accepted_reason(_finding("negative_data_rejection", 202, label=kickoff, headers=lenient))
    assert accepted_reason(_finding("negative_data_rejection", 202, label=kickoff,
                                    headers={"Prefer": "respond-async"})) is None
    assert accepted_reason(_finding("negative_data_rejection", 200, label=kickoff, headers=lenient)) is None
    assert accepted_reason(_finding("negative_data_rejection", 202, headers=lenient)) is None


def test_the_number_limits_are_accepted_only_for_a_body_that_carries_such_a_number():
    not_json = {"pointer": "", "message": "The body is not valid JSON."}
    advice = "POST /v1/clinics/{clinic_id}/insurance/payment-advices"
    assert accepted_reason(_finding("positive_data_acceptance", 400, [not_json], b'{"amount": 5e-324}', advice))
    assert accepted_reason(_finding("positive_data_acceptance", 400, [not_json], b'{"amount": 1.5}', advice)) is None
