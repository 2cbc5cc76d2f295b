"""The kick-off's rules without a request (clinicrecords.exports.parameters)."""

import datetime

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.exports.outcomes import ExportRefused
from clinicrecords.exports.parameters import parse_instant, read_kickoff

FHIR, ASYNC = "application/fhir+json", "respond-async"
ALL = {"patients:read", "conditions:read", "providers:read", "care_providers:read"}


def test_types_default_to_what_the_key_reads_in_output_order():
    wanted = read_kickoff("system", [], FHIR, ASYNC, ALL)
    assert wanted.types == ("Patient", "Condition", "Practitioner") and wanted.since is None
    # Patient/$export offers Practitioner too: those its records name.
    assert read_kickoff("patient", [], FHIR, ASYNC, ALL).types == ("Patient", "Condition", "Practitioner")


def test_type_lists_and_repeats_are_read_in_output_order():
    wanted = read_kickoff("system", [("_type", "Condition,Patient"), ("_type", "Patient")], FHIR, ASYNC, ALL)
    assert wanted.types == ("Patient", "Condition")


def test_practitioner_is_readable_under_either_of_its_permissions():
    assert read_kickoff("system", [("_type", "Practitioner")], FHIR, ASYNC, {"care_providers:read"}).types == (
        "Practitioner",)


def test_every_problem_is_named_at_once_unless_lenient():
    with pytest.raises(ExportRefused) as refused:
        read_kickoff("system", [("_elements", "id"), ("_since", "soon")], FHIR, ASYNC, ALL)
    assert [code for code, _ in refused.value.issues] == ["not-supported", "invalid"]
    lenient = read_kickoff("system", [("_elements", "id"), ("_since", "soon")], FHIR, f"{ASYNC}, handling=lenient",
                           ALL)
    assert lenient.since is None


def test_a_type_not_readable_is_the_keys_refusal_even_when_lenient():
    with pytest.raises(Problem) as refused:
        read_kickoff("system", [("_type", "Coverage")], FHIR, f"{ASYNC}, handling=lenient", ALL)
    assert refused.value.code == "scope_missing"


@pytest.mark.parametrize("text, expected", [
    ("2026-01-02T03:04:05Z", datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)),
    ("2026-01-02t03:04:05.5+02:00", datetime.datetime(2026, 1, 2, 1, 4, 5, 500000, tzinfo=datetime.UTC)),
    ("2026-01-02", None), ("2026-01-02T03:04:05", None), ("now", None),
])
def test_since_is_a_fhir_instant(text, expected):
    assert parse_instant(text) == expected


@pytest.mark.parametrize("prefer", ["respond-async,handling=lenient", "Respond-Async; handling=lenient"])
def test_lenient_handling_is_read_beside_respond_async(prefer):
    assert read_kickoff("system", [("_elements", "id")], FHIR, prefer, ALL).types
