"""The three input formats, read into numbered rows of the create-patient shape.

Counting comes first: more than MAX_ROWS (or none) is refused before any row is read.
"""

from dataclasses import dataclass

from clinicrecords.api.body import DuplicateKey, parse_json
from clinicrecords.api.problems import invalid

FORMATS = ("json_array", "ndjson", "fhir_bundle")
MAX_ROWS = 100


@dataclass(frozen=True)
class RowProblem:
    """A row that is not even an object; reported like any invalid row."""

    field: str
    reason: str


def _refuse(message):
    return invalid([{"pointer": "/data", "message": message}], "The import's data is not readable.")


def _check_count(count):
    if not 1 <= count <= MAX_ROWS:
        raise _refuse(f"An import has 1 to {MAX_ROWS} rows; this one has {count}.")


def read_rows(input_format, data):
    """[(row number, dict or RowProblem)], numbered from 1 in the order given."""
    reader = {"json_array": _json_array, "ndjson": _ndjson, "fhir_bundle": _fhir_bundle}[input_format]
    return list(enumerate(reader(data), start=1))


def _json_array(data):
    if not isinstance(data, list):
        raise _refuse("For json_array, data is an array of patient objects.")
    _check_count(len(data))
    return [row if isinstance(row, dict) else RowProblem("", "A row must be a JSON object.") for row in data]


def _ndjson(data):
    if not isinstance(data, str):
        raise _refuse("For ndjson, data is a string with one patient object per line.")
    lines = [line for line in data.split("\n") if line.strip()]
    _check_count(len(lines))
    rows = []
    for line in lines:
        try:
            row = parse_json(line)
        except DuplicateKey as repeated:
            field = repeated.pointer.lstrip("/").replace("/", ".")  # as row_errors_of names fields
            rows.append(RowProblem(field, "This key appears more than once in its object."))
            continue
        except (ValueError, RecursionError):
            rows.append(RowProblem("", "The line is not valid JSON."))
            continue
        rows.append(row if isinstance(row, dict) else RowProblem("", "A row must be a JSON object."))
    return rows


def _fhir_bundle(data):
    if not isinstance(data, dict) or data.get("resourceType") != "Bundle" or not isinstance(
            data.get("entry", []), list):
        raise _refuse("For fhir_bundle, data is a FHIR R4 Bundle whose Patient entries are imported.")
    patients = [entry["resource"] for entry in data.get("entry", [])
                if isinstance(entry, dict) and isinstance(entry.get("resource"), dict)
                and entry["resource"].get("resourceType") == "Patient"]
    _check_count(len(patients))
    return [fhir_patient_row(resource) for resource in patients]


def _first(value):
    return value[0] if isinstance(value, list) and value else None


def fhir_patient_row(resource):
    """A FHIR Patient in the create-patient shape. Elements with no place in that shape are not imported;
    values of the wrong type are passed on so that validation reports them on the right field."""
    row = {}
    name = _first(resource.get("name")) or {}
    if isinstance(name, dict):
        given = name.get("given")
        if given is not None:
            row["given_name"] = " ".join(given) if isinstance(given, list) and all(
                isinstance(g, str) for g in given) else given
        if "family" in name:
            row["family_name"] = name["family"]
    for fhir_name, name_here in (("birthDate", "birth_date"), ("gender", "sex")):
        if fhir_name in resource:
            row[name_here] = resource[fhir_name]
    telecom = resource.get("telecom") if isinstance(resource.get("telecom"), list) else []
    for system in ("phone", "email"):
        found = [t.get("value") for t in telecom if isinstance(t, dict) and t.get("system") == system]
        if found:
            row[system] = found[0]
    address = _first(resource.get("address"))
    if isinstance(address, dict):
        mapped = {here: address[there] for there, here in (("line", "line"), ("city", "city"), ("state", "region"),
                                                           ("postalCode", "postal_code"), ("country", "country"))
                  if there in address}
        if mapped:
            row["address"] = mapped
    identifier = _first(resource.get("identifier"))
    if isinstance(identifier, dict) and "value" in identifier:
        row["external_id"] = identifier["value"]
    return row
