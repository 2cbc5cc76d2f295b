"""Reading a kick-off (Bulk Data IG v2): its headers, its parameters, and the types the key may have.

Unsupported parameters or values are refused (400, an OperationOutcome), unless `Prefer: handling=lenient`
asks to ignore them. A type the key cannot read is never ignored: it is the key's reach, 403 scope_missing.
"""

import datetime
from urllib.parse import parse_qsl, urlsplit
from dataclasses import dataclass

from webob.acceptparse import AcceptValidHeader, create_accept_header

from clinicrecords.api.problems import Problem
from clinicrecords.api.schemas import instant_in_range
from clinicrecords.exports.outcomes import FHIR_JSON, ExportRefused
from clinicrecords.exports.sources import EXPORT_TYPES, readable_types

OUTPUT_FORMATS = frozenset({"application/fhir+ndjson", "application/ndjson", "ndjson"})
SUPPORTED_PARAMETERS = ("_type", "_since", "_outputFormat")
LEVELS = ("system", "patient")


@dataclass(frozen=True)
class ExportRequest:
    level: str
    types: tuple  # FHIR types, in EXPORT_TYPES' order
    since: datetime.datetime | None


def offered_types(level):
    """The types an export at `level` offers, in output order: every type at both levels (Patient/$export
    writes of Practitioner and Organization only those its compartment's records name)."""
    return tuple(EXPORT_TYPES)


def prefer_tokens(prefer):
    """`Prefer: respond-async, handling=lenient` → {"respond-async", "handling=lenient"} (lower case). A client
    writing `respond-async; handling=lenient` (a parameter's separator) means the same."""
    return {token.strip().lower().replace(" ", "") for part in (prefer or "").split(",") for token in part.split(";")
            if token.strip()}


def parse_instant(text):
    """A FHIR instant (a date-time with its offset), or None when `text` is not one."""
    text = text.upper()  # RFC 3339 allows `t` and `z`
    if "T" not in text:
        return None
    try:
        value = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    return value if value.tzinfo is not None else None


def accepts_fhir_json(accept):
    """Whether `Accept` names application/fhir+json itself (q > 0), whatever its parameters (`; fhirVersion=4.0`,
    `; charset=utf-8`): a wildcard, or a header that does not parse, does not ask for the kick-off's answer
    format."""
    header = create_accept_header(accept)
    return isinstance(header, AcceptValidHeader) and any(
        _media_type(media_range) == FHIR_JSON and quality > 0 for media_range, quality, *_ in header.parsed)


def _media_type(media_range):
    return media_range.split(";", 1)[0].strip().lower()


def _check_headers(accept, prefer):
    issues = []
    if accept is None or not accepts_fhir_json(accept):
        issues.append(("invalid", f"A kick-off is sent with Accept: {FHIR_JSON}."))
    if "respond-async" not in prefer_tokens(prefer):
        issues.append(("invalid", "A kick-off is sent with Prefer: respond-async."))
    if issues:
        raise ExportRefused(issues)


def _parameter_issues(level, parameters):
    """(issues, the types asked for or None, since) of the kick-off `parameters`, as the IG's rules read them."""
    offered = offered_types(level)
    issues, asked, since = [], None, None
    for name, value in parameters:
        if name == "_type":
            asked = asked or []
            for part in (piece.strip() for piece in value.split(",")):
                if part in offered:
                    asked.append(part)
                else:
                    issues.append(("not-supported", f"_type {part!r} is not exported here; offered: "
                                   f"{', '.join(offered)}."))
        elif name == "_since":
            since = parse_instant(value)
            if since is None:
                issues.append(("invalid", f"_since {value!r} is not a FHIR instant (a date-time with an offset)."))
            elif not instant_in_range(since):
                since = None
                issues.append(("invalid", f"_since {value!r} falls outside the years 1 to 9999 in UTC."))
        elif name == "_outputFormat":
            if value not in OUTPUT_FORMATS:
                issues.append(("not-supported", f"_outputFormat {value!r} is not supported; use "
                               "application/fhir+ndjson."))
        else:
            issues.append(("not-supported", f"The parameter {name!r} is not supported; supported: "
                           f"{', '.join(SUPPORTED_PARAMETERS)}."))
    return issues, asked, since


def ignored_parameters(level, request_url):
    """What a kick-off accepted under `Prefer: handling=lenient` ignored: [(FHIR issue code, diagnostics)] of
    its URL's parameters (any issue means it was lenient: a strict kick-off with one was refused)."""
    parameters = parse_qsl(urlsplit(request_url).query, keep_blank_values=True)
    return [(code, f"Ignored (handling=lenient): {text}") for code, text in _parameter_issues(level, parameters)[0]]


def read_kickoff(level, parameters, accept, prefer, granted):
    """The export `parameters` (a list of (name, value) as sent) ask for, given the headers and the
    permissions the key holds here (`granted`). Raises ExportRefused (400) or Problem scope_missing (403)."""
    _check_headers(accept, prefer)
    lenient = "handling=lenient" in prefer_tokens(prefer)
    offered = offered_types(level)
    issues, asked, since = _parameter_issues(level, parameters)
    if issues and not lenient:
        raise ExportRefused(issues)
    readable = set(readable_types(granted))
    if asked:
        refused = [name for name in dict.fromkeys(asked) if name not in readable]
        if refused:
            missing = sorted({" or ".join(map(str, EXPORT_TYPES[name])) for name in refused})
            raise Problem("scope_missing", f"The key may not read {', '.join(refused)}: it lacks "
                          f"{', '.join(missing)} in this clinic.")
        types = tuple(name for name in offered if name in asked)
    else:
        types = tuple(name for name in offered if name in readable)
        if not types:
            raise Problem("scope_missing", "The key may read none of the types this export offers here.")
    return ExportRequest(level, types, since)
