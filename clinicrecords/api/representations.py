"""How records are shown: the plain JSON shape, or FHIR R4 when the caller asks with
`Accept: application/fhir+json`. Each bounded context registers its kinds in its own package:

    config.add_representation("allergy", plain=allergy_json, fhir=allergy_fhir, schema=AllergyOut)

`plain(record, request)` and `fhir(record, request)` return dicts. Views answer with `render_one` and
`render_page`; writes always answer in the plain shape (`render_one(..., plain_only=True)`).
"""

from dataclasses import dataclass
from urllib.parse import urlencode

from clinicrecords.api.problems import Problem
from clinicrecords.api.render import json_response

JSON = "application/json"
FHIR_JSON = "application/fhir+json"
FHIR_CONTENT_TYPE = "application/fhir+json; fhirVersion=4.0"
FORM = "application/x-www-form-urlencoded"  # a FHIR search's parameters, sent as a body


@dataclass(frozen=True)
class Representation:
    plain: object
    fhir: object = None
    schema: object = None  # a marshmallow schema describing the plain shape, for the OpenAPI document


def wants_fhir(request):
    """True when the caller prefers FHIR; 406 when it accepts neither shape."""
    if "HTTP_ACCEPT" not in request.environ:
        return False
    offers = request.accept.acceptable_offers([JSON, FHIR_JSON])
    if not offers:
        raise Problem("not_acceptable", f"This route answers {JSON} or {FHIR_JSON}.")
    return offers[0][0] == FHIR_JSON


# {kind: Representation}, as the contexts registered them (`config.add_representation`).
REPRESENTATIONS = "api.representations"


def representation(registry, kind):
    """The `Representation` registered for `kind`, or None."""
    return registry[REPRESENTATIONS].get(kind)


def _representation(request, kind):
    return request.registry[REPRESENTATIONS][kind]


def _fhir_or_406(request, kind):
    representation = _representation(request, kind)
    if representation.fhir is None:
        raise Problem("not_acceptable", f"This resource has no FHIR form; ask for {JSON}.")
    return representation.fhir


# The fields of a document naming the record it shows (a submission's own id is `submission_id`) ...
SHOWN_ID_FIELDS = ("id", "submission_id")
# ... and, in a write's answer, the records the write touched besides: the patient, the item a submission
# targets and the record it produced. The audit trail names them all ("who read or changed what").
WRITTEN_ID_FIELDS = (*SHOWN_ID_FIELDS, "patient_id", "target_id", "result_record_id")
READ_METHODS = frozenset({"GET", "HEAD"})


def document_ids(documents, method):
    """The record ids the answer's documents name, for a request of `method`."""
    fields = SHOWN_ID_FIELDS if method in READ_METHODS else WRITTEN_ID_FIELDS
    return [document[field] for document in documents for field in fields if document.get(field)]


def _shown(request, documents):
    """The ids of the records an answer shows, kept for the audit trail (`shown_ids`) so it need not parse the
    body back."""
    request.state.shown_record_ids = document_ids(documents, request.method)
    return documents


def shown_ids(request):
    """The ids `render_*` showed in this request's answer, or None for an answer they did not build."""
    return request.state.shown_record_ids


def note_shown(request, ids):
    """The ids of the records an answer not built by render_one/render_page shows (a streamed export file),
    so the audit trail names them without reading the body back."""
    request.state.shown_record_ids = [str(value) for value in ids]


def note_touched(request, ids):
    """Records a write touched that its answer does not show (a removed record's patient, the patients an
    import created), for the audit trail."""
    request.state.touched_record_ids.extend(str(value) for value in ids)


def touched_ids(request):
    return request.state.touched_record_ids


def render_one(request, kind, record, status=200, headers=None, plain_only=False, extra=None):
    if not plain_only and wants_fhir(request):
        resource = _fhir_or_406(request, kind)(record, request)
        _shown(request, [resource])
        return json_response(resource, status, FHIR_CONTENT_TYPE, headers)
    document = {"data": _representation(request, kind).plain(record, request)}
    _shown(request, [document["data"]])
    if extra:
        document.update(extra)
    return json_response(document, status, JSON, headers)


def render_page(request, kind, page, extra=None):
    """`extra`: top-level fields the route adds beside the page envelope (plain shape only)."""
    if wants_fhir(request):
        to_fhir = _fhir_or_406(request, kind)
        resources = _shown(request, [to_fhir(item, request) for item in page.items])
        return json_response(searchset_bundle(request, resources, page.next_cursor), 200, FHIR_CONTENT_TYPE)
    plain = _representation(request, kind).plain
    documents = _shown(request, [plain(item, request) for item in page.items])
    return json_response({"data": documents, "has_more": page.has_more, "next_cursor": page.next_cursor,
                          **(extra or {})})


def render_list(request, kind, items):
    """`{data: [...]}` without paging (a bounded result such as a search), always in the plain shape."""
    plain = _representation(request, kind).plain
    return json_response({"data": _shown(request, [plain(item, request) for item in items])})


def searchset_bundle(request, resources, next_cursor=None):
    next_url = None
    if next_cursor:
        params = [(k, v) for k, v in request.GET.items() if k != "starting_after"]
        params.append(("starting_after", next_cursor))
        next_url = f"{request.application_url}{request.path}?{urlencode(params)}"
    return searchset(request.url, next_url, f"{request.application_url}{request.path}", resources)


def searchset(self_url, next_url, collection_url, resources, outcome=None):
    """A FHIR searchset Bundle of `resources` (each entry's fullUrl under `collection_url`), with its `self`
    and `next` links; `outcome`: an OperationOutcome on what the search left out, its entry last."""
    links = [{"relation": "self", "url": self_url}]
    if next_url:
        links.append({"relation": "next", "url": next_url})
    bundle = {"resourceType": "Bundle", "type": "searchset", "link": links}
    entries = [{"fullUrl": f"{collection_url}/{resource['id']}", "resource": resource, "search": _MATCH}
               if resource.get("id") else {"resource": resource, "search": _MATCH}
               # FHIR JSON has no nulls: an entry without an id has no fullUrl at all
               for resource in resources]
    if outcome is not None:
        entries.append({"resource": outcome, "search": {"mode": "outcome"}})
    if entries:  # FHIR JSON has no empty arrays: an empty page has no `entry`
        bundle["entry"] = entries
    return bundle


_MATCH = {"mode": "match"}  # shared by every entry: the bundle is serialized as built


def add_representation(config, kind, plain, fhir=None, schema=None):
    """The directive `config.add_representation`: `plain(record, request)` → the JSON shape of `kind`,
    `fhir` its FHIR R4 resource (or None), `schema` the plain shape as a marshmallow schema (the document)."""
    config.registry[REPRESENTATIONS][kind] = Representation(plain, fhir, schema)


def includeme(config):
    config.registry[REPRESENTATIONS] = {}
    config.add_directive("add_representation", add_representation)
