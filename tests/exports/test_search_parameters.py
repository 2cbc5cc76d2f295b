"""Reading a FHIR search's query, without a request: what each value stands for, and what is refused."""

import datetime

import pytest

from clinicrecords.exports.search_parameters import DEFAULT_COUNT, SearchRefused, read_search

UTC = datetime.UTC


def _date(value, name="_lastUpdated"):
    [criterion] = read_search("Patient", [(name, value)]).criteria
    [found] = criterion.values
    return found.prefix, found.start, found.end


@pytest.mark.parametrize("value, start, end", [
    ("2026", datetime.datetime(2026, 1, 1, tzinfo=UTC), datetime.datetime(2027, 1, 1, tzinfo=UTC)),
    ("2026-02", datetime.datetime(2026, 2, 1, tzinfo=UTC), datetime.datetime(2026, 3, 1, tzinfo=UTC)),
    ("2026-12", datetime.datetime(2026, 12, 1, tzinfo=UTC), datetime.datetime(2027, 1, 1, tzinfo=UTC)),
    ("2026-02-28", datetime.datetime(2026, 2, 28, tzinfo=UTC), datetime.datetime(2026, 3, 1, tzinfo=UTC)),
    ("2026-02-28T10:00Z", datetime.datetime(2026, 2, 28, 10, tzinfo=UTC),
     datetime.datetime(2026, 2, 28, 10, 1, tzinfo=UTC)),
    ("2026-02-28T10:00:05+02:00", datetime.datetime(2026, 2, 28, 8, 0, 5, tzinfo=UTC),
     datetime.datetime(2026, 2, 28, 8, 0, 6, tzinfo=UTC)),
])
def test_a_date_stands_for_the_range_its_precision_names(value, start, end):
    assert _date(value) == ("eq", start, end)
    assert _date(f"ge{value}")[0] == "ge"


def test_a_comma_is_or_and_a_repeat_is_and():
    search = read_search("Patient", [("given", "ada,bram"), ("family", "quill"), ("family", r"a\,b")])
    assert [criterion.values for criterion in search.criteria] == [("ada", "bram"), ("quill",), ("a,b",)]
    assert search.count == DEFAULT_COUNT and search.applied[0] == ("given", "ada,bram")


@pytest.mark.parametrize("pairs", [[("colour", "blue")], [("family:phonetic", "x")], [("birthdate", "soon")],
                                   [("birthdate", "ne2020")], [("_count", "-1")], [("_count", "101")],
                                   [("_lastUpdated", "9999-12-31")], [("patient", "not a reference")],
                                   [("family", "a\x00")], [("family", "q" * 257)]])
def test_what_cannot_be_run_is_refused_or_left_out_when_lenient(pairs):
    with pytest.raises(SearchRefused):
        read_search("Patient" if pairs[0][0] != "patient" else "Condition", pairs)
    lenient = read_search("Patient" if pairs[0][0] != "patient" else "Condition", pairs, lenient=True)
    assert lenient.criteria == () and lenient.applied == () and len(lenient.ignored) == 1


def test_a_token_of_another_system_matches_nothing_and_a_reference_reads_three_ways():
    [identifier] = read_search("Patient", [("identifier", "http://elsewhere.example|SBX")]).criteria
    assert identifier.values == (None,)
    [patient] = read_search("Condition", [("patient", "b66f1840-e503-575e-854c-eff6b973e58a,"
                                                      "Patient/b66f1840-e503-575e-854c-eff6b973e58a,"
                                                      "https://x.example/fhir/Patient/b66f1840-e503-575e-854c-eff6b973e58a")]).criteria
    assert len(set(patient.values)) == 1
