"""Documentation carried by each view, for the OpenAPI document: the `openapi=` view option.

    openapi={"summary": "Send an allergy for review", "status": 202, "kind": "submission",
             "many": False, "errors": ["client_reference_conflict"]}

`kind` names the representation the success answer carries (its `schema`, registered with
`config.add_representation(..., schema=...)`, documents it); `many` marks a page envelope; `errors` lists
the codes the route can answer beyond the ones every route shares (401, 403 scope_missing, 404, 429, 5xx).
"""


def openapi_deriver(view, info):
    return view


openapi_deriver.options = ("openapi",)


def includeme(config):
    config.add_view_deriver(openapi_deriver, name="openapi_doc")
