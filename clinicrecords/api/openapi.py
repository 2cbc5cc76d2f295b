"""The OpenAPI 3.1 document, generated from the registrations: served at GET /v1/openapi.json (no key) and
checked into docs/openapi.json by `scripts/openapi` (`clinicrecords/openapi_file.py`).

Each view documents itself with the `openapi=` view option:

    openapi={"summary": "Send an allergy for review", "status": 202, "kind": "submission",
             "many": False, "errors": ["client_reference_conflict"]}

- `clinic_key_only: True` marks routes only a clinic's own key may call (`x-clinic-key-only` in the document).
`kind` names the representation the success answer carries under `data` (its `schema`, registered with
  `config.add_representation(..., schema=...)`, documents it; its `fhir` adds the FHIR alternative on reads);
  `schema` gives a marshmallow schema instead, for answers without a representation; `answer` gives the
  whole body without an envelope (a marshmallow schema, or a JSON Schema dict), e.g. the change feed's
  `{events, next_after}`. `many` marks a page envelope. `status` defaults to 200.
- `errors` lists the codes the route can answer beyond those the generator derives itself: the key gate
  (401, 403, 429), the clinic's reach (403, 404), the permission (403 scope_missing), item lookups (404),
  validation (400, 415, unknown_field), idempotency (409), content negotiation (406) and 5xx.

Paths, parameters, bodies and their `example`s come from `clinicrecords.api.routes` and the view options
`body_schema`, `query_schema` and `idempotency`.
"""

import json

from pyramid.security import NO_PERMISSION_REQUIRED

from clinicrecords.api.code_samples import served_setup
from clinicrecords.api.render import json_response
from clinicrecords.resources import Resource

DOCUMENT_PATH = "docs/openapi.json"


class OpenApiDocument(Resource):
    """/v1/openapi.json"""

    public = True


def openapi_deriver(view, info):
    return view


openapi_deriver.options = ("openapi",)


# The document, built on first use and kept in the registry.
DOCUMENT = "api.openapi_document"


def document(registry):
    """The document as a dict (built once per application)."""
    if DOCUMENT not in registry:
        # On first use, not at import: the builder pulls in apispec, which no request needs but this one.
        from clinicrecords.api.openapi_builder import build_document

        registry[DOCUMENT] = build_document(registry)
    return registry[DOCUMENT]


def document_text(registry):
    """The canonical serialisation, as committed in docs/openapi.json."""
    return json.dumps(document(registry), indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n"


def served_document(request):
    """The document as served: its curl set-up names the address it is served from (a shallow copy: the
    document built once is shared)."""
    built = document(request.registry)
    info = {**built["info"], "description": served_setup(built["info"]["description"], request.application_url)}
    return {**built, "info": info}


def serve_document(context, request):
    return json_response(served_document(request))


def includeme(config):
    config.add_view_deriver(openapi_deriver, name="openapi_doc")
    # The traversal registry must exist before this context adds its resource to it (includes run once).
    config.include("clinicrecords.resources")
    config.add_api_resource("openapi.json", OpenApiDocument, public=True)
    config.add_view(serve_document, context=OpenApiDocument, request_method="GET",
                    permission=NO_PERMISSION_REQUIRED,
                    openapi={"summary": "This OpenAPI document", "answer": {"type": "object"}})
