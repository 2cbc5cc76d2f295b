"""The clinic's FHIR base (Bulk Data IG v2): metadata, kick-offs, the status URL and the files.

Views parse and answer; the rules are clinicrecords.exports.parameters' (the kick-off) and the service's.
"""

import datetime
from email.utils import format_datetime

from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED
from pyramid.view import view_config

from clinicrecords.access.interfaces import BULK_EXPORT
from clinicrecords.api.problems import Problem, invalid
from clinicrecords.api.render import json_response
from clinicrecords.api.representations import FHIR_CONTENT_TYPE, FORM, note_shown, representation, searchset
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.exports.documents import capability_statement, manifest
from clinicrecords.exports.interfaces import IExportService
from clinicrecords.exports.outcomes import FHIR_JSON, ExportRefused, operation_outcome, outcome_response
from clinicrecords.exports.parameters import prefer_tokens, read_kickoff
from clinicrecords.exports.resources import (FHIR_TYPE_COLLECTIONS, ExportFileResource, ExportJobResource,
                                             FhirBase, FhirRecord, PatientCompartment)
from clinicrecords.exports.schemas import (MANIFEST_SCHEMA, FHIR_RESOURCE, SEARCH_QUERIES, KickoffQuery,
                                           PatientKickoffQuery, ReadQuery, search_form)
from clinicrecords.exports.search import SearchRequest, run_search
from clinicrecords.exports.search_parameters import SearchRefused

NDJSON = "application/fhir+ndjson"
# Every failure under the base is an OperationOutcome carrying the problem's code (exports.outcomes).
_OUTCOMES = {"errors_as_outcomes": True}
_KICKOFF_DOC = {
    **_OUTCOMES, "status": 202, "media_type": FHIR_JSON, "answer": FHIR_RESOURCE, "fhir_errors": [400],
    "headers": {"Accept": [FHIR_JSON], "Prefer": ["respond-async", "respond-async, handling=lenient"]},
    "response_headers": {"Content-Location": "The status URL: poll it with GET, cancel with DELETE."},
    "errors": ["too_many_exports", "too_many_export_kickoffs"],
    "description": "Bulk Data kick-off: send `Accept: application/fhir+json` (its parameters, such as "
                   "`fhirVersion=4.0`, are not compared) and `Prefer: respond-async` (400 without). Answers 202 "
                   "with `Content-Location`, the status URL to poll. A parameter or value not supported is 400, "
                   "unless `Prefer: respond-async, handling=lenient`: then it is ignored, and the manifest's "
                   "`error` file holds one OperationOutcome of severity `warning` per ignored parameter "
                   "(`_outputFormat` included: the files are NDJSON whatever it asked). Every failure is an "
                   "OperationOutcome. docs/bulk-export.md describes the whole flow.",
}


def _read(context, request, level):
    """The kick-off's rules (its headers, parameters and the types the key may read): the ExportRequest, or the
    400 OperationOutcome to answer. Raises Problem scope_missing (403)."""
    if request.method == "HEAD":  # Pyramid answers HEAD with a GET view: a HEAD must not start an export
        raise Problem("method_not_allowed", "A kick-off is a GET.", headers={"Allow": "GET"})
    try:
        return read_kickoff(level, list(request.GET.items()), request.headers.get("Accept"),
                            request.headers.get("Prefer"), clinic_scope(context).granted)
    except ExportRefused as refused:
        return outcome_response(refused.issues, 400)


def _kickoff_guard(level):
    """Before any Idempotency-Key replay: the calling key's own kick-off rules (another key of the same owner
    may not read the types the stored answer's export holds)."""
    def guard(context, request):
        wanted = _read(context, request, level)
        return wanted if isinstance(wanted, Response) else None
    return guard


def _kick_off(context, request, level, base):
    wanted = _read(context, request, level)
    if isinstance(wanted, Response):
        return wanted
    scope = clinic_scope(context)
    job = request.find_service(IExportService).kick_off(wanted, request.url, request.resource_url(base)[:-1],
                                                        owner_id=scope.identity.owner_id)
    status_url = request.resource_url(base, "export-jobs", str(job.id))
    response = outcome_response([("informational", f"Export accepted; poll {status_url}")], 202, "information")
    response.headers["Content-Location"] = status_url
    return response


@view_config(context=FhirBase, name="metadata", request_method="GET", permission=NO_PERMISSION_REQUIRED,
             openapi={**_OUTCOMES,
                      "summary": "The clinic's FHIR base: its CapabilityStatement (the export operations and types). "
                                 "Public: no key, the same document for every well-formed clinic id",
                      "media_type": FHIR_JSON, "answer": FHIR_RESOURCE})
def metadata(context, request):
    # Only the URL asked for varies: nothing of the clinic is read, so no clinic's existence shows (decision 0161).
    base_url = request.resource_url(context)[:-1]
    return json_response(capability_statement(base_url), 200, FHIR_JSON)


@view_config(context=FhirBase, name="$export", request_method="GET", permission=BULK_EXPORT,
             query_schema=KickoffQuery, idempotency="optional", idempotency_guard=_kickoff_guard("system"),
             openapi={**_OUTCOMES, "summary": "Kick off a Bulk Data export of the clinic (every type the key may read)",
                      **_KICKOFF_DOC})
def export_clinic(context, request):
    return _kick_off(context, request, "system", context)


@view_config(context=PatientCompartment, name="$export", request_method="GET", permission=BULK_EXPORT,
             query_schema=PatientKickoffQuery, idempotency="optional", idempotency_guard=_kickoff_guard("patient"),
             openapi={**_OUTCOMES, "summary": "Kick off a Bulk Data export of the patient compartment's types",
                      **_KICKOFF_DOC})
def export_patients(context, request):
    return _kick_off(context, request, "patient", context.__parent__)


@view_config(context=ExportJobResource, request_method="GET", permission=BULK_EXPORT,
             openapi={**_OUTCOMES,
                      "summary": "Poll an export: 202 with X-Progress while it runs, 200 with the manifest",
                      "answer": MANIFEST_SCHEMA, "fhir_errors": [500],
                      "response_headers": {"Expires": "When the export and its files are removed."},
                      "other_responses": {202: {"description": "The export is still running", "headers": {
                          "X-Progress": "What the export is doing (and whether it restarted)",
                          "Retry-After": "Seconds to wait before polling again (sooner: 429)"}}},
                      "errors": ["export_polled_too_soon"]})
def poll_export(context, request):
    service = request.find_service(IExportService)
    job = context.job
    poll = service.poll(job)
    if poll.status == "failed":
        return outcome_response([("exception", job.error or "The export failed.")], 500)
    if poll.status != "completed":
        return Response(status=202, headers={"X-Progress": poll.progress, "Retry-After": str(poll.retry_after)})
    base = context.__parent__.__parent__

    def file_url(export_file):
        return request.resource_url(base, "export-files", str(export_file.id))

    document = manifest(job, service.files(job), file_url, restarted=job.attempt > 1)
    expires = format_datetime(job.expires_at.astimezone(datetime.UTC), usegmt=True)
    return json_response(document, 200, headers={"Expires": expires})


@view_config(context=ExportJobResource, request_method="DELETE", permission=BULK_EXPORT, idempotency="optional",
             openapi={**_OUTCOMES,
                      "summary": "Cancel an export and remove its files (afterwards the status URL is 404)",
                      "status": 202, "media_type": FHIR_JSON, "answer": FHIR_RESOURCE})
def cancel_export(context, request):
    request.find_service(IExportService).cancel(context.job)
    return outcome_response([("informational", "The export was cancelled and its files removed.")], 202,
                            "information")


@view_config(context=ExportFileResource, request_method="GET", permission=BULK_EXPORT,
             openapi={**_OUTCOMES, "summary": "Download one NDJSON file of a completed export (the same key only)",
                      "media_type": NDJSON, "answer": {"type": "string"}})
def download_file(context, request):
    download = request.find_service(IExportService).readable(context.export_file)
    if download is None:
        raise Problem("not_found", "The file is no longer available.")
    note_shown(request, download.patient_ids)
    response = Response(app_iter=download.lines(), content_type=NDJSON, charset=None,
                        content_length=download.size, conditional_response=True)
    response.etag = download.etag
    return response


# What a FHIR read answers in: `Accept` (or `_format`, which FHIR clients send where they cannot set headers)
# naming JSON, FHIR's or plain, or nothing; FHIR's XML and anything else is 406.
_JSON_FORMATS = frozenset({"json", "application/json", "application/fhir+json"})


def _named(source, row, resource):
    """What the audit trail names for a resource shown: the record and the patient it is about."""
    patient_id = source.patient_id(row)
    return [resource["id"], *([patient_id] if patient_id is not None else [])]


def _check_format(request):
    asked = request.GET.get("_format")
    if asked is not None:
        if asked.split(";", 1)[0].strip().lower() not in _JSON_FORMATS:
            raise Problem("not_acceptable", f"_format {asked!r}: this base answers {FHIR_JSON} only.")
    elif "Accept" in request.headers and not request.accept.acceptable_offers([FHIR_JSON, "application/json"]):
        raise Problem("not_acceptable", f"This base answers {FHIR_JSON} only.")


@view_config(context=FhirRecord, request_method="GET", permission=BULK_EXPORT, query_schema=ReadQuery,
             openapi={**_OUTCOMES,
                      "summary": "Read one resource of an exported type (FHIR read: the same JSON as the export's "
                                 "lines)",
                      "media_type": FHIR_JSON, "answer": FHIR_RESOURCE, "errors": ["not_acceptable"],
                      "response_headers": {"ETag": "The record's version (its last change); If-None-Match "
                                                   "answers 304",
                                           "Last-Modified": "When the record last changed, where it keeps it"},
                      "description": "Needs the type's read permission: Patient patients:read, "
                                     "AllergyIntolerance allergies:read, Condition conditions:read, "
                                     "MedicationStatement and MedicationRequest medications:read, ServiceRequest "
                                     "referrals:read, Encounter encounters:read, Coverage coverage:read, "
                                     "Organization payers:read; Practitioner: the clinic's clinicians with "
                                     "providers:read, the patients' care providers with care_providers:read. "
                                     "Restricted patients and everything about them, and sensitive encounters, "
                                     "are 404 as absent ones."})
def read_resource(context, request):
    _check_format(request)
    source, record = context.source, context.record
    resource = representation(request.registry, source.kind).fhir(record, request)
    note_shown(request, _named(source, record, resource))
    response = json_response(resource, 200, FHIR_CONTENT_TYPE, conditional=True)
    updated_at = getattr(record, "updated_at", None)
    if updated_at is not None:
        response.etag = (f"{resource['id']}.{updated_at.timestamp():.6f}", False)
        response.last_modified = updated_at
    else:
        response.md5_etag()
    return response


_SEARCH_DOC = {
    **_OUTCOMES, "media_type": FHIR_JSON, "answer": {"$ref": "#/components/schemas/FhirSearchsetBundle"},
    "errors": ["not_acceptable"],
    "optional_headers": {"Prefer": ["handling=strict", "handling=lenient"]},
    "description": "FHIR search: a `searchset` Bundle of the records the key may read (the same JSON as the "
                   "export's lines and the reads), `_count` per page (default 25, at most 100; a parameter without "
                   "a value is ignored), and a `next` link "
                   "while more follow (its `_cursor` carries the search: follow it as given). The type's read "
                   "permission applies, as to its read; restricted patients and everything about them, and "
                   "sensitive encounters, are never found. A parameter, modifier or value not offered is 400, "
                   "unless `Prefer: handling=lenient`: then it is left out, the `self` link shows what was "
                   "applied, and an OperationOutcome entry (search mode `outcome`) names what was not. "
                   "docs/fhir.md lists each type's parameters.",
}


def _answer_search(context, request, pairs):
    _check_format(request)
    lenient = "handling=lenient" in prefer_tokens(request.headers.get("Prefer"))
    asked = SearchRequest.of(context, request)
    try:
        found = run_search(asked, pairs, lenient)
    except SearchRefused as refused:
        return outcome_response(refused.issues, 400)
    registry = request.registry
    resources, shown = [], []
    for record in found.page.found:
        resource = representation(registry, record.source.kind).fhir(record.row, request)
        resources.append(resource)
        shown += _named(record.source, record.row, resource)
    note_shown(request, shown)
    outcome = None
    if found.ignored:
        outcome = operation_outcome([("not-supported", f"Ignored (handling=lenient): {text}")
                                     for text in found.ignored], "warning")
    bundle = searchset(found.self_url, found.next_url, asked.collection_url, resources, outcome)
    return json_response(bundle, 200, FHIR_CONTENT_TYPE)


def search(context, request):
    return _answer_search(context, request, list(request.GET.items()))


def search_by_form(context, request):
    if request.content_type != FORM:
        raise Problem("unsupported_media_type", f"Send the search's parameters as {FORM}.")
    try:
        form = list(request.POST.items())
    except UnicodeDecodeError:
        raise invalid([{"pointer": "", "message": "The form is not UTF-8."}], "The form is not UTF-8.") from None
    return _answer_search(context, request, [*request.GET.items(), *form])


# A form any sandbox answers: Patient by a sandbox patient's family name (the reason to POST), the others by
# page size.
_FORM_EXAMPLES = {"Patient": {"family": "Quill"}}


def add_search_views(config):
    """Each type's search (GET) and search by form (POST _search), with its own query's parameters."""
    for fhir_type, collection in FHIR_TYPE_COLLECTIONS.items():
        query = SEARCH_QUERIES[fhir_type]
        config.add_view(search, context=collection, request_method="GET", permission=BULK_EXPORT,
                        query_schema=query,
                        openapi={**_SEARCH_DOC, "summary": f"Search {fhir_type} (FHIR search-type)"})
        form = {"schema": search_form(fhir_type), "example": _FORM_EXAMPLES.get(fhir_type, {"_count": "10"})}
        config.add_view(search_by_form, context=collection, name="_search", request_method="POST",
                        permission=BULK_EXPORT, query_schema=query, body_limit=SEARCH_FORM_BYTES,
                        openapi={**_SEARCH_DOC, "form_body": form,
                                 "summary": f"Search {fhir_type} with the parameters in a form body (names stay "
                                            "out of URLs and logs)",
                                 "errors": ["not_acceptable", "unsupported_media_type", "payload_too_large"]})


# A search's form holds a few parameters: far more is not a search.
SEARCH_FORM_BYTES = 16384
