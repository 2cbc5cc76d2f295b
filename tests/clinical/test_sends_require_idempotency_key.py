"""POST allergies, conditions and medication-statements require an Idempotency-Key, like every other POST
that creates something (docs/decisions/0015-api-conventions.md); without one nothing is sent. PATCH keeps it
optional."""

import pytest

from clinicrecords.clinical import schemas
from tests.common.clinical import headers, idem, sandbox

SENDS = [("allergies", schemas.AllergyCreate), ("conditions", schemas.ConditionCreate),
         ("medication-statements", schemas.MedicationStatementCreate)]


@pytest.mark.parametrize(("collection", "schema"), SENDS)
def test_a_send_without_idempotency_key_is_refused_and_sends_nothing(world, testapp, collection, schema):
    clinic_id, key = sandbox(world)
    url = f"/v1/clinics/{clinic_id}/{collection}"
    before = testapp.get(f"/v1/clinics/{clinic_id}/submissions", headers=headers(key)).json["data"]

    refused = testapp.post_json(url, schema.EXAMPLE, headers=headers(key), status=400)
    assert refused.content_type == "application/problem+json"
    assert refused.json["code"] == "invalid_request"
    assert refused.json["errors"][0]["location"] == "header"
    assert testapp.get(f"/v1/clinics/{clinic_id}/submissions", headers=headers(key)).json["data"] == before

    testapp.post_json(url, schema.EXAMPLE, headers=idem(key), status=202)


@pytest.mark.parametrize(("collection", "schema"), SENDS)
def test_the_document_says_required(registry, collection, schema):
    from clinicrecords.api.openapi import document

    operation = document(registry)["paths"][f"/v1/clinics/{{clinic_id}}/{collection}"]["post"]
    [header] = [p for p in operation["parameters"] if p.get("name") == "Idempotency-Key"]
    assert header["required"] is True
