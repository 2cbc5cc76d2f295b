"""The FHIR base's search parameters, as R4 defines them, and how a query is read into criteria.

No request here: `read_search(fhir_type, pairs, lenient)` turns the query's (name, value) pairs into a
`Search` (criteria, page size, what was applied and what was ignored), and a criterion becomes a SQL clause
over the columns of the select its source's rows come from (`criterion.clause(columns)`).

Values as R4 reads them: a comma within one parameter is OR, the same parameter twice is AND, a parameter
without a value is ignored, `_count=0` asks for no records (the page's links alone); a date takes
the prefixes eq, gt, ge, lt and le, and a value as precise as the writer chose (`2026`, `2026-03`,
`2026-03-04`, an instant) stands for its whole range; a string matches the start of a name, ignoring case
(`:exact`: the whole name, case kept; `:contains`: anywhere); a reference is an id, `Patient/{id}` or an
absolute URL ending so. A parameter the base does not offer, a modifier it does not know, or a value it cannot
read is refused (400 OperationOutcome), unless the client sends `Prefer: handling=lenient`: then it is ignored,
and the Bundle says so in an OperationOutcome entry of search mode `outcome` (decision 0164).
"""

import datetime
import re
import uuid
from dataclasses import dataclass, field

from sqlalchemy import false, func, or_

DEFAULT_COUNT = 25
MAX_COUNT = 100
# The next link's parameter: it carries the search and stands alone (clinicrecords.exports.search).
CURSOR_PARAMETER = "_cursor"
# No value of a search is longer (an absolute reference is about 100 characters).
MAX_VALUE_CHARS = 256


# What each kind of value looks like (the OpenAPI document states them; the readers below read them).
_UUID = r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
REFERENCE_PATTERN = rf"(?:https?://[^,]*/)?(?:(?:Patient|Practitioner)/)?({_UUID})(?:/_history/[^/,]+)?"
DATE_PATTERN = (r"(?:eq|gt|ge|lt|le)?[0-9]{4}(?:-[0-9]{2}(?:-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2}"
                r"(?:\.[0-9]{1,6})?)?(?:Z|[+-][0-9]{2}:[0-9]{2}))?)?)?")
TEXT_PATTERN = r"[^,]+"  # a token or a string: one value (commas separate several)
COUNT_PATTERN = r"[0-9]|[1-9][0-9]|100"  # 0 to MAX_COUNT
VALUE_PATTERNS = {"reference": REFERENCE_PATTERN, "date": DATE_PATTERN, "token": TEXT_PATTERN, "string": TEXT_PATTERN}


class SearchRefused(Exception):
    """A query the base will not run: 400 with one OperationOutcome issue per reason."""

    def __init__(self, issues):
        super().__init__("; ".join(text for _, text in issues))
        self.issues = issues  # [(FHIR issue code, diagnostics)]


class _Unreadable(ValueError):
    """A value a parameter cannot read."""


class _NotOffered(_Unreadable):
    """A parameter or modifier the type's search does not offer."""


@dataclass(frozen=True)
class Parameter:
    """One search parameter: `kind` is R4's type of it (token, date, string, reference); `columns` the
    select's columns it matches (any one of them); `system` the code system its tokens may name; `modifiers`
    those it accepts besides none."""

    kind: str
    columns: tuple
    system: str | None = None
    modifiers: frozenset = frozenset()


@dataclass(frozen=True)
class Criterion:
    """One parameter as sent (all its comma-separated values: any may match)."""

    parameter: Parameter
    modifier: str | None
    values: tuple

    def clause(self, columns):
        """The SQL clause over `columns` (a select's `selected_columns`)."""
        matched = [_CLAUSES[self.parameter.kind](columns[name], value, self.modifier)
                   for value in self.values for name in self.parameter.columns]
        return or_(*matched) if len(matched) > 1 else matched[0]


@dataclass(frozen=True)
class Search:
    criteria: tuple
    count: int
    applied: tuple  # [(name, value)] as sent, in order: the Bundle's self link
    ignored: tuple = field(default=())  # [diagnostics] of what a lenient search left out


_STRING = frozenset({"exact", "contains"})
_CLINICAL_STATUS = {"Condition": "http://terminology.hl7.org/CodeSystem/condition-clinical",
                    "AllergyIntolerance": "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical"}
# Patient.identifier as the Patient representation writes it (clinicrecords.patients.representations).
PATIENT_IDENTIFIER_SYSTEM = "urn:clinicrecords:external-id"
_GENDER_SYSTEM = "http://hl7.org/fhir/administrative-gender"

_COMMON = {"_id": Parameter("token", ("id",)), "_lastUpdated": Parameter("date", ("updated_at",))}
_ABOUT_A_PATIENT = {"patient": Parameter("reference", ("patient_id",))}
_SUBJECT = {**_ABOUT_A_PATIENT, "subject": Parameter("reference", ("patient_id",))}

# {FHIR type: {parameter name: Parameter}}: what each type's search offers, named as R4 names them. Columns are
# those of the rows its sources select (clinicrecords.exports.sources).
SEARCH_PARAMETERS = {
    "Patient": {**_COMMON,
                "identifier": Parameter("token", ("external_id",), system=PATIENT_IDENTIFIER_SYSTEM),
                "name": Parameter("string", ("given_name", "family_name"), modifiers=_STRING),
                "family": Parameter("string", ("family_name",), modifiers=_STRING),
                "given": Parameter("string", ("given_name",), modifiers=_STRING),
                "birthdate": Parameter("date", ("birth_date",)),
                "gender": Parameter("token", ("sex",), system=_GENDER_SYSTEM)},
    "AllergyIntolerance": {**_COMMON, **_ABOUT_A_PATIENT,
                           "clinical-status": Parameter("token", ("clinical_status",),
                                                        system=_CLINICAL_STATUS["AllergyIntolerance"])},
    "Condition": {**_COMMON, **_SUBJECT,
                  "clinical-status": Parameter("token", ("clinical_status",), system=_CLINICAL_STATUS["Condition"])},
    "MedicationStatement": {**_COMMON, **_SUBJECT},
    "MedicationRequest": {**_COMMON, **_SUBJECT},
    "ServiceRequest": {**_COMMON, **_SUBJECT},
    "Encounter": {**_COMMON, **_SUBJECT, "date": Parameter("date", ("start_at",))},
    "Coverage": {**_COMMON, **_ABOUT_A_PATIENT, "beneficiary": Parameter("reference", ("patient_id",))},
    "Practitioner": dict(_COMMON),
    "PractitionerRole": {**_COMMON, "practitioner": Parameter("reference", ("id",))},
    # A payer keeps no change time: its `_lastUpdated` is when it was added, as its meta.lastUpdated says.
    "Organization": {"_id": _COMMON["_id"], "_lastUpdated": Parameter("date", ("created_at",))},
}


def read_search(fhir_type, pairs, lenient=False):
    """The `Search` the query `pairs` ([(name, value)], `_format` and `_cursor` already taken out) asks of
    `fhir_type`; raises SearchRefused, or with `lenient` leaves out and names what it cannot run."""
    offered = SEARCH_PARAMETERS[fhir_type]
    criteria, applied, issues, count = [], [], [], DEFAULT_COUNT
    for name, value in pairs:
        parts = _split(value)
        if not parts:
            continue  # R4: a parameter without a value is ignored
        try:
            if "\x00" in name or "\x00" in value:
                raise _Unreadable(f"{name!r}: text may not contain NUL characters.")
            if len(value) > MAX_VALUE_CHARS:
                raise _Unreadable(f"{name}: a value is at most {MAX_VALUE_CHARS} characters.")
            if name == "_count":
                count = _count(value)
            else:
                criteria.append(_criterion(fhir_type, offered, name, parts))
            applied.append((name, value))
        except _Unreadable as reason:
            issues.append(("not-supported" if isinstance(reason, _NotOffered) else "value", str(reason)))
    if issues and not lenient:
        raise SearchRefused(issues)
    return Search(tuple(criteria), count, tuple(applied), tuple(text for _, text in issues))


def _count(value):
    if not re.fullmatch(COUNT_PATTERN, value):
        raise _Unreadable(f"_count={value!r}: a whole number from 0 to {MAX_COUNT}.")
    return int(value)


def _criterion(fhir_type, offered, name, parts):
    base, _, modifier = name.partition(":")
    parameter = offered.get(base)
    if parameter is None or (modifier and modifier not in parameter.modifiers):
        known = ", ".join(sorted(offered))
        what = f"modifier :{modifier} of {base}" if parameter is not None else f"parameter {name}"
        raise _NotOffered(f"The {what} is not offered by {fhir_type} search (its parameters: {known}, _count).")
    values = tuple(_READERS[parameter.kind](part, parameter, name) for part in parts)
    return Criterion(parameter, modifier or None, values)


def _split(value):
    """A parameter's values: split on commas not escaped (`\\,` is a comma within one value)."""
    parts = re.split(r"(?<!\\),", value)
    return [part.replace("\\,", ",") for part in parts if part]


def _read_token(part, parameter, name):
    """The code, or None when the value names a system this parameter's codes are not of (it matches nothing)."""
    system, bar, code = part.rpartition("|")
    if bar and system != (parameter.system or ""):
        return None
    return code


def _read_reference(part, parameter, name):
    match = re.fullmatch(REFERENCE_PATTERN, part)
    if match is None:
        raise _Unreadable(f"{name}={part!r}: a reference is an id, Type/id or an absolute URL ending so.")
    return uuid.UUID(match.group(1))


def _read_string(part, parameter, name):
    return part


_DATE_PREFIXES = ("eq", "gt", "ge", "lt", "le")
_PRECISIONS = ((r"\d{4}", "%Y"), (r"\d{4}-\d{2}", "%Y-%m"), (r"\d{4}-\d{2}-\d{2}", "%Y-%m-%d"))


@dataclass(frozen=True)
class DateRange:
    """A date value's prefix and the range it stands for, [start, end)."""

    prefix: str
    start: datetime.datetime
    end: datetime.datetime


def _read_date(part, parameter, name):
    prefix, text = (part[:2], part[2:]) if part[:2].isalpha() else ("eq", part)
    if prefix not in _DATE_PREFIXES:
        raise _Unreadable(f"{name}={part!r}: the prefix {prefix!r} is not offered (eq, gt, ge, lt, le).")
    try:
        start, end = _range(text)
    except (ValueError, OverflowError):  # not a date, or its range runs past the calendar's end
        raise _Unreadable(f"{name}={part!r}: a FHIR date (2026, 2026-03, 2026-03-04) or instant "
                          "(2026-03-04T10:00:00Z).") from None
    return DateRange(prefix, start, end)


def _range(text):
    for pattern, layout in _PRECISIONS:
        if re.fullmatch(pattern, text):
            start = datetime.datetime.strptime(text, layout).replace(tzinfo=datetime.UTC)
            if layout == "%Y":
                return start, start.replace(year=start.year + 1)
            if layout == "%Y-%m":
                return start, (start + datetime.timedelta(days=32)).replace(day=1)
            return start, start + datetime.timedelta(days=1)
    found = re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})", text)
    if found is None:
        raise ValueError(text)
    instant = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    seconds, fraction = found.group(1), found.group(2)
    width = datetime.timedelta(microseconds=1) if fraction else datetime.timedelta(seconds=1 if seconds else 60)
    return instant, instant + width


_READERS = {"token": _read_token, "reference": _read_reference, "string": _read_string, "date": _read_date}


def _token_clause(column, code, modifier):
    if code is None:
        return false()
    if column.key == "id":
        try:
            return column == uuid.UUID(code)
        except ValueError:
            return false()  # not an id this base gives: nothing has it
    return column == code


def _reference_clause(column, value, modifier):
    return column == value


def _string_clause(column, value, modifier):
    if modifier == "exact":
        return column == value
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%" if modifier == "contains" else f"{escaped}%"
    return func.lower(column).like(func.lower(pattern), escape="\\")


def _date_clause(column, value, modifier):
    start, end = value.start, value.end
    if column.type.python_type is datetime.date:  # a birth date: the days the range touches, to its last instant's
        start, end = start.date(), (end - datetime.timedelta(microseconds=1)).date() + datetime.timedelta(days=1)
    return {"eq": lambda: (column >= start) & (column < end), "gt": lambda: column >= end,
            "ge": lambda: column >= start, "lt": lambda: column < start, "le": lambda: column < end}[value.prefix]()


_CLAUSES = {"token": _token_clause, "reference": _reference_clause, "string": _string_clause, "date": _date_clause}
