"""Builds the OpenAPI 3.1 document with apispec from `clinicrecords.api.routes` (see `api/openapi.py`)."""

import importlib.metadata
import json

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import resolve_schema_cls, resolve_schema_instance

from clinicrecords.api.body import MAX_EXPONENT, MAX_NUMBER_CHARS
from clinicrecords.api.code_samples import code_samples, curl_setup
from clinicrecords.api.cursors import CURSOR_LIFETIME_SECONDS
from clinicrecords.api.problem_codes import CODES, problem_type
from clinicrecords.api.idempotency import HEADER as IDEMPOTENCY_HEADER
from clinicrecords.api.idempotency import KEY_PATTERN, MAX_KEY_LENGTH, REPLAYED_HEADER
from clinicrecords.api.permission_names import grantable_permissions, permission_descriptions
from clinicrecords.api.render import json_bytes
from clinicrecords.api.representations import FHIR_JSON, FORM, JSON
from clinicrecords.api.representations import representation as registered_representation
from clinicrecords.api.routes import operations
from clinicrecords.settings import ApiSettings

PROBLEM_JSON = "application/problem+json"
BEARER = "bearerAuth"

# Every keyed route can meet the key gate; every route can meet validation of its query and the database.
# Every route: a malformed query, a URL over the length limit (api.max_url_length), headers over the server's
# limit, an unknown transfer coding (clinicrecords/waitress_refusals.py), and server failures.
_ALWAYS = ("invalid_request", "uri_too_long", "request_header_too_large", "not_implemented", "internal_error",
           "service_unavailable")
_KEYED = ("invalid_key", "browser_not_allowed", "ip_not_allowed", "rate_limited")
_IN_CLINIC = ("sandbox_only", "not_verified", "workspace_plan_required", "not_found")

PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details with a stable `code` (see `x-error-codes`).",
    "required": ["type", "title", "status", "code", "request_id"],
    "properties": {
        "type": {"type": "string", "format": "uri"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "code": {"type": "string", "enum": sorted(CODES)},
        "request_id": {"type": "string"},
        "detail": {"type": "string"},
        "errors": {"type": "array", "items": {
            "type": "object", "required": ["pointer", "message"], "additionalProperties": False,
            "properties": {
                "pointer": {"type": "string", "description": "RFC 6901 JSON pointer into the body, or naming "
                            "the query parameter or header when `location` says so"},
                "message": {"type": "string"},
                "location": {"type": "string", "enum": ["query", "header"]},
            }}},
    },
    "additionalProperties": False,
}

FHIR_RESOURCE_SCHEMA = {
    "type": "object", "required": ["resourceType"],
    "description": "A FHIR R4 resource (application/fhir+json; fhirVersion=4.0).",
    "properties": {"resourceType": {"type": "string"}, "id": {"type": "string"}},
}

FHIR_BUNDLE_SCHEMA = {
    "type": "object", "required": ["resourceType", "type", "link"],
    "description": "A FHIR R4 searchset Bundle; the `next` link carries the cursor (`starting_after` on the "
                   "REST lists, `_cursor` on the FHIR base).",
    "properties": {
        "resourceType": {"const": "Bundle"},
        "type": {"const": "searchset"},
        "link": {"type": "array", "items": {"type": "object", "required": ["relation", "url"], "properties": {
            "relation": {"type": "string"}, "url": {"type": "string"}}}},
        "entry": {"type": "array", "items": {"type": "object", "required": ["resource"], "properties": {
            "fullUrl": {"type": "string"}, "resource": {"$ref": "#/components/schemas/FhirResource"},
            "search": {"type": "object"}}}},
    },
}


def version():
    try:
        return importlib.metadata.version("clinicrecords")
    except importlib.metadata.PackageNotFoundError:
        return "1.0.0"


def _name_resolver():
    """Component names from class names ("PatientCreate"); a clash between two contexts' classes of the
    same name is resolved with the context's name ("InsuranceAddress") instead of a silent overwrite."""
    taken = {}

    def resolve(schema):
        cls = resolve_schema_cls(schema)
        name = cls.__name__.removesuffix("Schema") or cls.__name__
        if taken.setdefault(name, cls) is not cls:
            context = cls.__module__.split(".")[1] if cls.__module__.startswith("clinicrecords.") else "x"
            name = context.title().replace("_", "") + name
            taken.setdefault(name, cls)
        return name

    return resolve


def error_codes(operation, registry):
    """Every code this route can answer, derived from its registration plus its declared `errors`."""
    options = operation.options
    codes = set(_ALWAYS) | set(operation.doc.get("errors", ()))
    if not operation.public:
        codes |= set(_KEYED)
        if operation.permission in grantable_permissions(registry):
            codes.add("scope_missing")
    parameters = operation.node.parameters
    if operation.node.in_clinic:
        codes |= set(_IN_CLINIC)
    if parameters:
        codes.add("not_found")
    if operation.method == "GET" and operation.doc.get("kind"):
        codes.add("not_acceptable")
    body_schema = options.get("body_schema")
    if body_schema is not None:
        # Every body is capped (1 MiB unless the route's body_limit= says otherwise).
        codes |= {"unsupported_media_type", "invalid_request", "payload_too_large"}
        if body_schema.FORBIDDEN_FIELDS or body_schema.REFUSE_UNDERSCORE_FIELDS:
            codes.add("unknown_field")
    if options.get("idempotency"):
        codes |= {"idempotency_key_conflict", "idempotency_key_reused"}
    unknown = codes - CODES.keys()
    if unknown:
        raise ValueError(f"{operation.method} {operation.path} declares unknown codes: {sorted(unknown)}")
    return codes


def _outcome_schema(codes):
    """A failure told as a FHIR OperationOutcome: the problem's code in issue[0].details.coding (api.problems'
    dialects; the clinic's FHIR base)."""
    return {"allOf": [{"$ref": "#/components/schemas/FhirResource"}, {
        "type": "object", "required": ["resourceType", "issue"],
        "description": "An OperationOutcome: `issue[0].details.coding[0]` holds the problem type's URI "
                       "(`system`) and its code; `issue[0].diagnostics` ends with the request id.",
        "properties": {"resourceType": {"const": "OperationOutcome"}, "issue": {"type": "array", "items": {
            "type": "object", "properties": {"details": {"type": "object", "properties": {"coding": {
                "type": "array", "items": {"type": "object", "properties": {"code": {"enum": codes}}}}}}}}}}}]}


def _problem_responses(codes, as_outcomes=False):
    by_status = {}
    for code in codes:
        by_status.setdefault(CODES[code].status, []).append(code)
    responses = {}
    for status, found in sorted(by_status.items()):
        found.sort()
        response = {
            "description": "; ".join(f"`{code}`: {CODES[code].title}" for code in found),
            "content": {FHIR_JSON: {"schema": _outcome_schema(found)}} if as_outcomes else
                       {PROBLEM_JSON: {"schema": {"allOf": [
                           {"$ref": "#/components/schemas/Problem"},
                           {"properties": {"status": {"const": status}, "code": {"enum": found}}},
                       ]}}},
        }
        if status in (429, 503):
            response["headers"] = {"Retry-After": {"schema": {"type": "string"},
                                                   "description": "When to retry."}}
        responses[str(status)] = response
    return responses


def _page(items):
    return {"type": "object", "required": ["data", "has_more", "next_cursor"], "properties": {
        "data": {"type": "array", "items": items},
        "has_more": {"type": "boolean"},
        "next_cursor": {"type": ["string", "null"], "description": "Send as `starting_after` for the "
                        "next page; null on the last page."}}}


def _list(items):
    return {"type": "object", "required": ["data"], "properties": {"data": {"type": "array", "items": items}}}


def _events_next_after(items):
    return {"type": "object", "required": ["events", "next_after"], "properties": {
        "events": {"type": "array", "items": items},
        "next_after": {"type": "integer", "minimum": 0, "description": "Send as `after_seq` to continue."}}}


# The shapes a `many` answer comes in (`openapi={"envelope": ...}`); "page" unless a route says otherwise.
ENVELOPES = {"page": _page, "list": _list, "events_next_after": _events_next_after}


def _envelope(data_schema, many, replay_field, envelope="page"):
    if many:
        return ENVELOPES[envelope](data_schema)
    properties = {"data": data_schema}
    if replay_field:
        properties["idempotent_replay"] = {"type": "boolean", "description": "true on a replayed answer"}
    return {"type": "object", "required": ["data"], "properties": properties}


def _add_envelope_properties(schema, properties):
    """Top-level fields a route adds beside its envelope (`openapi={"envelope_properties": {...}}`): always
    present in the answer, so required."""
    if properties:
        schema["properties"].update(properties)
        schema["required"] = [*schema["required"], *properties]


def _exclusive_bounds(converter, field, ret, **kwargs):
    """apispec writes a Range's bounds as inclusive; OpenAPI 3.1 states an exclusive one by its own keyword."""
    for validator in field.validators:
        for inclusive, bound, keyword in (("min_inclusive", "minimum", "exclusiveMinimum"),
                                          ("max_inclusive", "maximum", "exclusiveMaximum")):
            if getattr(validator, inclusive, True) is False and bound in ret:
                ret[keyword] = ret.pop(bound)
    return {}


class _Converter(OpenAPIConverter):
    def schema2jsonschema(self, schema):
        """A request schema's rules across fields (`OBJECT_RULES`) go on its object, beside the fields."""
        jsonschema = super().schema2jsonschema(schema)
        instance = resolve_schema_instance(schema)
        if hasattr(instance, "object_rules"):
            jsonschema.update(instance.object_rules())
        return jsonschema


class _Plugin(MarshmallowPlugin):
    Converter = _Converter


def error_code_table():
    """Markdown, from the code list itself: the page shows exactly the codes the API answers with."""
    rows = [f"| {known.status} | `{code}` | {known.title} |"
            for code, known in sorted(CODES.items(), key=lambda item: (item[1].status, item[0]))]
    return "\n".join(["| Status | Code | Meaning |", "| - | - | - |", *rows])


def permission_table(registry):
    """Markdown: each permission a clinic can grant and what it allows, from the descriptions access registers
    (the same words the clinic console and the developer portal show)."""
    rows = [f"| `{name}` | {text} |" for name, text in permission_descriptions(registry).items()]
    return "\n".join(["| Permission | What it allows |", "| - | - |", *rows])


# What the server enforces beside each operation's schemas: rules on a whole request, which no field's schema
# can state (docs/decisions/0070-document-and-server-agree.md).
_MAX_URL, _MAX_BODY_MIB = ApiSettings.max_url_length, ApiSettings.max_body_bytes // 1024 // 1024  # the defaults
RULES_BESIDE_THE_SCHEMAS = "\n".join([
    f"- **URLs** are at most {_MAX_URL} characters (414 `uri_too_long`); headers over the server's limit "
    "are 431 `request_header_too_large`. Every operation declares both.",
    f"- **Bodies** are JSON objects of at most {_MAX_BODY_MIB} MiB unless the operation says "
    f"otherwise (413 `payload_too_large`). A number is at most {MAX_NUMBER_CHARS} characters long with an "
    f"exponent between -{MAX_EXPONENT} and {MAX_EXPONENT} (so `5e-324` is refused), and no text, object keys "
    "included, contains NUL: each is 400 `invalid_request`.",
    "- **Methods**: a method a path does not list is 405 `method_not_allowed` with `Allow`. The path's shape "
    "alone decides it, after the key's own checks: also when the record the path names is absent or outside "
    "the key's reach, so it reveals nothing about records.",
    "- **Cursors** (`starting_after`) are opaque: only a `next_cursor` the server issued for the same list and "
    f"key owner, within {CURSOR_LIFETIME_SECONDS // 3600} hours, is valid. Never build or change one.",
    "- **References and codes**: an id in a body must name a record of the clinic (400 naming the field); "
    "ICD-10-CM codes are checked against the code list, RxNorm codes against the verified list, NPIs and GTINs "
    "against their check digits.",
    "- **Rules across fields** (at least one change, fields that exclude each other) are part of each body's "
    "schema; comparisons of two fields (an end before its start) are in the fields' descriptions.",
])


def introduction(registry):
    return "\n\n".join([
        "Server-to-server JSON REST API to a clinic's own records. Every request carries `Authorization: "
        "Bearer <API_KEY>`; failures are application/problem+json with a stable `code`, listed in the table "
        "below (and as `x-error-codes` in this document). Each operation lists the codes it can answer.",
        "## Trying it with curl", curl_setup(),
        "## Permissions",
        "A clinic grants an organization some of these permissions when it connects it (`GET /v1/connections` "
        "lists them per clinic); each operation names the one it needs (`x-permission`).",
        permission_table(registry),
        "## Rules beside the schemas", RULES_BESIDE_THE_SCHEMAS,
        "## Error codes", error_code_table(),
    ])


class _Builder:
    def __init__(self, registry):
        self.registry = registry
        self.plugin = _Plugin(schema_name_resolver=_name_resolver())
        self.spec = APISpec(
            title="Clinic Records API", version=version(), openapi_version="3.1.0", plugins=[self.plugin],
            info={"description": introduction(registry)},
            security=[{BEARER: []}],
        )
        self.plugin.converter.add_attribute_function(_exclusive_bounds)
        self.spec.components.security_scheme(BEARER, {
            "type": "http", "scheme": "bearer",
            "description": "An API key: `ehr_live_<keyId>_<secret>` or `ehr_test_<keyId>_<secret>`."})
        self.spec.components.schema("Problem", PROBLEM_SCHEMA)
        self.spec.components.schema("FhirResource", FHIR_RESOURCE_SCHEMA)
        self.spec.components.schema("FhirSearchsetBundle", FHIR_BUNDLE_SCHEMA)
        self.operation_ids = set()

    def ref(self, schema):
        return self.plugin.converter.resolve_nested_schema(schema)

    def _operation_id(self, operation):
        # A view answering several routes (the FHIR base's read of each type) names each by its resource.
        # A resource answering several operations names each by (method, view name).
        resource = operation.node.resource
        name = (getattr(resource, "operation_ids", {}).get((operation.method, operation.view_name))
                or getattr(resource, "operation_id", None) or operation.callable.__name__)
        if name in self.operation_ids:
            name = f"{operation.callable.__module__.split('.')[1]}_{name}"
        self.operation_ids.add(name)
        return name

    def _parameters(self, operation):
        parameters = []
        for parameter in operation.node.parameters:
            entry = {"in": "path", "name": parameter.name, "required": True,
                     "schema": {"type": "string", "format": "uuid"}}
            if parameter.sandbox_example_id is not None:
                entry["example"] = str(parameter.sandbox_example_id)
            parameters.append(entry)
        query_schema = operation.options.get("query_schema")
        if query_schema is not None:
            parameters.append({"in": "query", "schema": query_schema})
        # `headers`: request headers a route requires, each with the values it accepts (the first is the
        # example's): a Bulk Data kick-off's Accept and Prefer.
        for name, accepted in operation.doc.get("headers", {}).items():
            parameters.append({"in": "header", "name": name, "required": True, "example": accepted[0],
                               "schema": {"type": "string", "enum": list(accepted)}})
        # `optional_headers`: a header a route reads when sent, the values it acts on (a FHIR search's Prefer);
        # as RFC 7240 has it for Prefer, anything else in it is ignored.
        for name, understood in operation.doc.get("optional_headers", {}).items():
            parameters.append({"in": "header", "name": name, "required": False, "example": understood[0],
                               "schema": {"type": "string"}, "description": f"Acts on {', '.join(understood)}; "
                               "anything else is ignored."})
        mode = operation.options.get("idempotency")
        if mode:
            parameters.append({
                "in": "header", "name": IDEMPOTENCY_HEADER, "required": mode == "required",
                "description": "Makes a retry safe: the first answer is replayed for 24 hours.",
                "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH, "pattern": KEY_PATTERN}})
        return parameters

    def _success(self, operation):
        doc = operation.doc
        status = str(doc.get("status", 200))
        response = {"description": doc.get("summary", "Success")}
        kind = doc.get("kind")
        representation = registered_representation(self.registry, kind) if kind else None
        if kind and representation is None:
            raise ValueError(f"{operation.method} {operation.path}: no representation registered for {kind!r}")
        data_schema = None
        if representation is not None and representation.schema is not None:
            data_schema = self.ref(representation.schema)
        elif representation is not None:
            data_schema = {"type": "object"}
        elif doc.get("schema") is not None:
            data_schema = self.ref(doc["schema"])
        content = {}
        if data_schema is not None:
            many = bool(doc.get("many"))
            envelope = doc.get("envelope", "page")
            schema = _envelope(data_schema, many, operation.options.get("idempotent_replay_field"), envelope)
            _add_envelope_properties(schema, doc.get("envelope_properties"))
            content[JSON] = {"schema": schema}
            if (representation is not None and representation.fhir is not None and operation.method == "GET"
                    and envelope == "page"):
                fhir = "FhirSearchsetBundle" if many else "FhirResource"
                content[FHIR_JSON] = {"schema": {"$ref": f"#/components/schemas/{fhir}"}}
        elif doc.get("answer") is not None:
            answer = doc["answer"]
            # `media_type`: a route answering something other than JSON (the HTML reference page).
            content[doc.get("media_type", JSON)] = {"schema": answer if isinstance(answer, dict) else self.ref(answer)}
        if content:
            response["content"] = content
        headers = {}
        if status in ("201", "202"):
            headers["Location"] = {"schema": {"type": "string"}, "description": "Where the created record "
                                   "(or the submission) can be read."}
        if operation.options.get("idempotency"):
            headers[REPLAYED_HEADER] = {"schema": {"type": "string", "enum": ["true"]},
                                        "description": "Present on a replayed answer."}
        for name, description in doc.get("response_headers", {}).items():
            headers[name] = {"schema": {"type": "string"}, "description": description}
        if headers:
            response["headers"] = headers
        return status, response

    def _operation(self, operation):
        doc = operation.doc
        status, success = self._success(operation)
        result = {
            "operationId": self._operation_id(operation),
            "summary": doc.get("summary", ""),
            "tags": [operation.callable.__module__.split(".")[1]],
            "parameters": self._parameters(operation),
            "responses": {status: success, **_problem_responses(error_codes(operation, self.registry),
                                                                doc.get("errors_as_outcomes", False))},
        }
        responses = result["responses"]
        # `other_responses`: further successes ({status: {description, headers: {name: description}}}: an
        # export's 202 while it runs); `fhir_errors`: statuses that may also answer a FHIR OperationOutcome;
        # `errors_as_outcomes`: every failure is told as an OperationOutcome (the clinic's FHIR base).
        for other, answer in doc.get("other_responses", {}).items():
            responses[str(other)] = {"description": answer["description"], "headers": {
                name: {"schema": {"type": "string"}, "description": text}
                for name, text in answer.get("headers", {}).items()}}
        for failed in doc.get("fhir_errors", ()):
            entry = responses.setdefault(str(failed), {"description": "An OperationOutcome"})
            entry.setdefault("content", {})[FHIR_JSON] = {"schema": {"$ref": "#/components/schemas/FhirResource"}}
        description = [doc["description"]] if doc.get("description") else []
        if not operation.public and operation.permission in grantable_permissions(self.registry):
            text = permission_descriptions(self.registry)[str(operation.permission)]
            description.append(f"Needs the permission `{operation.permission}`: {text[:1].lower()}{text[1:]}.")
        if description:
            result["description"] = "\n\n".join(description)
        if doc.get("clinic_key_only"):
            # Only a clinic's own key may call it (organization and test keys get 404): its example is for a
            # clinic's own data, not a sandbox.
            result["x-clinic-key-only"] = True
        if operation.public:
            result["security"] = []
        elif operation.permission in grantable_permissions(self.registry):
            result["x-permission"] = str(operation.permission)
        body_schema = operation.options.get("body_schema")
        if body_schema is not None:
            media = {"schema": body_schema}
            if body_schema.EXAMPLE is not None:
                media["example"] = json.loads(json_bytes(body_schema.EXAMPLE))
            result["requestBody"] = {"required": True, "content": {JSON: media}}
        if doc.get("form_body") is not None:  # {schema, example} of a form (a FHIR search by POST)
            result["requestBody"] = {"required": True, "content": {FORM: doc["form_body"]}}
        return result

    def build(self):
        paths = {}
        for operation in operations(self.registry):
            paths.setdefault(operation.path, {})[operation.method.lower()] = self._operation(operation)
        for path, methods in paths.items():
            self.spec.path(path=path, operations=methods)
        document = self.spec.to_dict()
        for path, methods in document["paths"].items():
            for method, operation in methods.items():
                operation["x-codeSamples"] = code_samples(method, path, operation)
        document["x-error-codes"] = {code: {"status": known.status, "title": known.title,
                                            "type": problem_type(code)} for code, known in CODES.items()}
        # One canonical JSON form: what is served is exactly what is committed.
        return json.loads(json_bytes(document))


def build_document(registry):
    return _Builder(registry).build()
