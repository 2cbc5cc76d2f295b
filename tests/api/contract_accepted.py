"""The disagreements between the OpenAPI document and the server that the contract run accepts
(`tests/api/test_contract.py`), each with its reason: a rule the server enforces that no JSON Schema keyword can
state (two fields compared, a code list, a record that must exist, a signature), or a behaviour decided on
purpose. Everything else schemathesis finds fails the run.

Each entry names the check that reports it and how the server's answer shows it (the error pointers of its
400, and words of their messages), so an entry never hides another refusal of the same request."""

import decimal
import json
import re
from dataclasses import dataclass, field

from clinicrecords.api.body import MAX_EXPONENT, MAX_NUMBER_CHARS

ACCEPTS_VALID = "positive_data_acceptance"


@dataclass(frozen=True)
class Finding:
    """One failed check: its name, the case sent, schemathesis's failure, and what went and came back."""

    check: str
    case: object
    failure: object
    request: object
    response: object

    @property
    def label(self):
        return self.case.operation.label

    def answered(self):
        """The answer's JSON object (a problem's, or a record's), or {}; a problem told as an OperationOutcome
        (the FHIR base's) read back as the problem: its code and its errors' pointers and messages."""
        try:
            body = json.loads(self.response.content)
        except (AttributeError, TypeError, ValueError):
            return {}
        if not isinstance(body, dict):
            return {}
        return _as_problem(body) if body.get("resourceType") == "OperationOutcome" else body

    def answer(self):
        if self.response is None:
            return "no answer"
        answered = self.answered()
        return f"{self.response.status_code} {answered.get('code', '')} {answered.get('errors', '')}".strip()

    def curl(self):
        try:
            return self.case.as_curl_command()
        except Exception:  # only for the report
            return f"{self.case.method} {self.case.path}"


@dataclass(frozen=True)
class Accepted:
    check: str
    reason: str
    # Every error of the server's answer has a pointer matching `pointer` (a regular expression) and a
    # message containing one of `words`; None: any answer of `status`.
    pointer: str | None = None
    words: tuple = ()
    operations: tuple = ()  # only these operations; empty: any
    status: int = 400
    sent: object = field(default=None)  # a further test on the finding (what was sent, what came back)

    def covers(self, finding):
        if finding.check != self.check or (self.operations and finding.label not in self.operations):
            return False
        if finding.response is None or finding.response.status_code != self.status:
            return False
        if self.pointer is not None:
            errors = finding.answered().get("errors") or []
            if not errors or not all(re.fullmatch(self.pointer, error.get("pointer", ""))
                                     and any(word in error.get("message", "") for word in self.words)
                                     for error in errors):
                return False
        return self.sent is None or self.sent(finding)


def _numbers(text):
    found = []

    def number(literal):
        found.append(literal)
        return decimal.Decimal(literal)

    json.loads(text, parse_float=number, parse_int=number)
    return found


def _number_beyond_limits(finding):
    """The body carries a number the body reader refuses whatever its field (api/body.py)."""
    body = getattr(finding.request, "body", None)
    if not body:
        return False
    try:
        numbers = _numbers(body)
    except ValueError:
        return False
    return any(len(n) > MAX_NUMBER_CHARS or abs(decimal.Decimal(n).adjusted()) > MAX_EXPONENT for n in numbers)


def _withdrawn(finding):
    data = finding.answered().get("data") or {}
    return (data.get("review_status"), data.get("decision_reason")) == ("rejected", "withdrawn")


def _as_problem(outcome):
    """An OperationOutcome carrying a problem (clinicrecords.exports.outcomes.problem_outcome) as that problem's
    code and errors; its issues stay beside them, for what the FHIR base refuses by itself."""
    issues = [issue for issue in outcome.get("issue") or [] if isinstance(issue, dict)]
    codings = ((issues[0].get("details") or {}).get("coding") or [{}]) if issues else [{}]
    errors = []
    for issue in issues[1:]:
        pointer, _, message = issue.get("diagnostics", "").partition(": ")
        errors.append({"pointer": pointer, "message": message})
    return {"code": codings[0].get("code"), "errors": errors, "issue": issues}


SUBMISSIONS_ITEM = "/v1/clinics/{clinic_id}/submissions/{submission_id}"
FHIR_BASE = "/v1/clinics/{clinic_id}/fhir/"
EXPORT_KICKOFF = "/v1/clinics/{clinic_id}/fhir/$export"
PATIENT_KICKOFF = "/v1/clinics/{clinic_id}/fhir/Patient/$export"


def _idempotency_conflict(finding):
    return finding.answered().get("code") == "idempotency_key_conflict"


def _since_outside_the_calendar(finding):
    """The kick-off refused `_since` alone, as an instant whose UTC time leaves the years 1 to 9999."""
    issues = finding.answered().get("issue") or []
    return bool(issues) and all("outside the years 1 to 9999" in issue.get("diagnostics", "") for issue in issues)


def _lenient(finding):
    """The kick-off asked, with `Prefer: handling=lenient`, that what it does not support be ignored."""
    prefer = str((finding.case.headers or {}).get("Prefer", ""))
    return "handling=lenient" in prefer.replace(" ", "").lower()

def _search_path(finding):
    """A FHIR search's path: GET {base}/{type} or POST {base}/{type}/_search."""
    method, path = finding.label.split(" ", 1)
    if not path.startswith(FHIR_BASE):
        return False
    rest = path[len(FHIR_BASE):]
    return (method == "GET" and "/" not in rest and rest not in ("metadata", "$export")) or \
        (method == "POST" and rest.endswith("/_search"))


def _search_refused(*words):
    """A FHIR search refused, every issue of its OperationOutcome saying one of `words`."""
    def sent(finding):
        issues = finding.answered().get("issue") or []
        return _search_path(finding) and bool(issues) and all(
            any(word in issue.get("diagnostics", "") for word in words) for issue in issues)
    return sent


def _lenient_search(finding):
    return _search_path(finding) and _lenient(finding)


ACCEPTED = [
    Accepted(
        ACCEPTS_VALID, pointer="/starting_after", words=("Not a cursor of this list",),
        reason="A cursor is opaque and signed by the server for one list and one key owner: the document gives "
               "its shape and says only a `next_cursor` is valid, but no schema can tell a made-up string of "
               "that shape from one the server issued."),
    Accepted(
        ACCEPTS_VALID, pointer="/from", words=("after `to`", "spans at most"),
        operations=("GET /v1/clinics/{clinic_id}/dispensing/flags",),
        reason="`from` after `to`, or a window over 366 days: the server judges the two query parameters "
               "together, and an OpenAPI parameter's schema sees only itself (both rules are in their "
               "descriptions)."),
    Accepted(
        ACCEPTS_VALID, pointer="/(updated_since|from|to|start|end|starts_at)",
        words=("outside the years 1 to 9999", "Must be before 9999-12-31", "starts before 0001-01-01"),
        reason="An instant whose UTC time leaves the years 1 to 9999 (`0001-01-01T00:00:00+14:00`), or a "
               "dispensing window that would step out of the calendar: a valid date-time or date, but JSON "
               "Schema's formats have no bounds to state (the rule is "
               "docs/decisions/0114-dates-instants-calendar-holds.md)."),
    Accepted(
        ACCEPTS_VALID, pointer="/(start|end|abatement_date|effective_end)",
        words=("before the start", "cannot be before"),
        reason="A date before the date it follows (an encounter's end before its start, also when a PATCH "
               "moves one of them past the other as stored, a condition's abatement before its onset, a "
               "medicine's end before its start): JSON Schema compares a value with constants, never with "
               "another field or the stored record."),
    Accepted(
        ACCEPTS_VALID, pointer="/(icd10_code|reason_code)", words=("Not a real ICD-10-CM code",),
        reason="ICD-10-CM codes are checked against the code list the server ships (tens of thousands of "
               "codes): the document gives the code's length, not the list."),
    Accepted(
        ACCEPTS_VALID, pointer=r"/medication/rxnorm|/substance/rxnorm", words=("not on the verified list",),
        reason="RxNorm codes are accepted only when on the verified list (spec), which the operator may extend "
               "per deployment (`clinical.rxnorm_extra_file`): a committed document cannot enumerate it."),
    Accepted(
        ACCEPTS_VALID, pointer=r"/npi|/item/gtin|/items/\d+/gtin", words=("check digit",),
        reason="An NPI's Luhn check digit and a GTIN's GS1 check digit: the document states their shape (a "
               "pattern of digits), but a checksum is arithmetic no JSON Schema keyword performs."),
    Accepted(
        ACCEPTS_VALID, pointer=r"(/[a-z0-9_]+)*/(patient_id|provider_id|payer_id|referral_id|insurance_company_id"
                               r"|claim_id|item_id)",
        words=("No such", "No patient with", "No clinician with", "No payer with", "No referral", "no item"),
        reason="A reference must name a record of this clinic (a patient, a clinician, a payer of its "
               "directory): the document says which kind of record a field names, but only the clinic's data "
               "says which ids exist."),
    Accepted(
        ACCEPTS_VALID, pointer="/starts_at", words=("Slots are 30 minutes long", "already begun"),
        operations=("POST /v1/clinics/{clinic_id}/appointments",),
        reason="Appointments start in the future, on the hour or half hour of the clinic's local time: the "
               "alignment depends on the clinic's time zone and the offset the caller writes, and the future on "
               "the clock, which no pattern on a date-time can follow (the field's description says both)."),
    Accepted(
        ACCEPTS_VALID, pointer="", words=("The clinic has acted on this referral",),
        operations=("PATCH /v1/clinics/{clinic_id}/referrals/{referral_id}",),
        reason="PATCH on a referral the clinic has acted on is 400 invalid_request (spec, Referrals): a state "
               "of the record, not of the request, which a request schema cannot know."),
    Accepted(
        ACCEPTS_VALID, pointer=".*", words=("may not contain NUL",),
        reason="NUL is refused in every text of a body or a query, object keys and free-form data (import "
               "rows, FHIR bundles) included (api/validation.py): a rule on the JSON text as a whole that no "
               "field's schema covers; the document's introduction states it once."),
    Accepted(
        ACCEPTS_VALID, pointer="", words=("The body is not valid JSON",), sent=_number_beyond_limits,
        reason="The body reader refuses a number longer than 40 characters or with an exponent beyond ±40 "
               "(5e-324 included) before any field is read, a guard against numbers that cost CPU and memory; "
               "no JSON Schema keyword speaks of a number's written form (the document's introduction says "
               "it)."),
    Accepted(
        ACCEPTS_VALID, pointer=".*", words=("Unknown field",), operations=(f"PATCH {SUBMISSIONS_ITEM}",),
        reason="A change of a pending submission is a merge patch of what its send carried, validated as that "
               "send would be: which fields it takes depends on the submission's kind (an allergy's, a "
               "condition's, ...) and on whether it proposed a new item or a change, which the stored record "
               "decides and the path does not show (the operation's description says so)."),
    Accepted(
        "use_after_free", status=200, operations=(f"GET {SUBMISSIONS_ITEM}",), sent=_withdrawn,
        reason="DELETE on a submission withdraws it (review_status rejected, decision_reason withdrawn): the "
               "submission stays readable by design, and the operation's description says so."),
    Accepted(
        "missing_required_header", status=409, operations=(f"GET {EXPORT_KICKOFF}", f"GET {PATIENT_KICKOFF}"),
        sent=_idempotency_conflict,
        reason="A Bulk Data kick-off is a GET that takes an Idempotency-Key, claimed before the request is read "
               "as on every route (docs/conventions.md, Idempotency): a key sent before with another request is "
               "409 idempotency_key_conflict whatever else the request lacks; without that key, a missing "
               "Accept or Prefer is 400."),
    Accepted(
        ACCEPTS_VALID, operations=(f"GET {EXPORT_KICKOFF}", f"GET {PATIENT_KICKOFF}"),
        sent=_since_outside_the_calendar,
        reason="A kick-off's `_since` whose UTC time leaves the years 1 to 9999 (`0001-01-01T00:00:00+14:00`) is "
               "a valid date-time, but JSON Schema's format has no bounds to state; the kick-off refuses it with "
               "its OperationOutcome (docs/bulk-export.md)."),
    Accepted(
        "negative_data_rejection", status=202, operations=(f"GET {EXPORT_KICKOFF}", f"GET {PATIENT_KICKOFF}"),
        sent=_lenient,
        reason="Bulk Data's lenient handling (the IG, and docs/bulk-export.md): a kick-off sent with `Prefer: "
               "handling=lenient` asks the server to ignore a parameter or value it does not support rather than "
               "refuse it, so a value outside the parameter's schema is ignored and the export starts (202). A "
               "type the key cannot read is still 403 scope_missing; without lenient handling the same request "
               "is 400."),
    Accepted(
        ACCEPTS_VALID, pointer="/_cursor", words=("Not a cursor of this search", "send it alone"),
        reason="A FHIR search's `_cursor` is opaque, encrypted and signed by the server for one search and one key "
               "owner, and carries the search, so it is sent alone: no schema can tell a made-up string from one "
               "the server issued, nor say that one parameter excludes the others (decision 0164)."),
    Accepted(
        ACCEPTS_VALID, sent=_search_refused("a FHIR date", "text may not contain NUL"),
        reason="A FHIR search's date shaped as the pattern says but not on the calendar (`2026-02-30`, month 13, "
               "year 0000, a range running past 9999), or a value with NUL: a pattern states a date's shape, not "
               "the calendar (decision 0164)."),
    Accepted(
        ACCEPTS_VALID, status=414, sent=_search_path,
        reason="A FHIR search repeats its parameters freely (each repeat is AND): the URL's length limit "
               "(`api.max_url_length`, 414 uri_too_long) bounds them all together, which no parameter's schema "
               "can state; POST _search takes the same parameters in a body."),
    Accepted(
        "negative_data_rejection", status=200, sent=_lenient_search,
        reason="FHIR search's lenient handling (R4's search, decision 0164): with `Prefer: handling=lenient` a "
               "parameter or value the base does not offer is left out, not refused, and the Bundle's "
               "OperationOutcome entry names it; without it the same request is 400."),
]


def accepted_reason(finding):
    for entry in ACCEPTED:
        if entry.covers(finding):
            return entry.reason
    return None
