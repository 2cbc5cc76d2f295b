"""Every documented request body example works as-is against a fresh sandbox: the documented success.
Routes only a clinic's own key may call (`x-clinic-key-only`, patient import) use a clinic seeded like a
sandbox, with its own key.

Generic over the OpenAPI document, so every route merged later is covered by the same test."""

import uuid

from clinicrecords.api.openapi import document


def _examples(registry):
    for path, methods in document(registry)["paths"].items():
        for method, operation in methods.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None:
                yield path, method, operation, body


def _url(path, operation, sandbox_clinic_id):
    values = {}
    for parameter in operation["parameters"]:
        if parameter["in"] != "path":
            continue
        if parameter["name"] == "clinic_id":
            values["clinic_id"] = str(sandbox_clinic_id)
        else:
            assert "example" in parameter, (
                f"{path}: declare sandbox_example_id on the item resource of {{{parameter['name']}}}")
            values[parameter["name"]] = parameter["example"]
    return path.format(**values)


def test_every_body_example_succeeds_in_a_fresh_sandbox(world, testapp, registry):
    examples = list(_examples(registry))
    assert examples, "the document has no request bodies"
    failures = []
    for path, method, operation, body in examples:
        assert "example" in body, f"{method.upper()} {path} has no example"
        if operation.get("x-clinic-key-only"):
            sandbox_clinic_id = world.clinic(seed=True)
            key = world.key(clinic_id=sandbox_clinic_id)
        else:
            workspace_id, sandbox_clinic_id = world.workspace()
            key = world.key(workspace_id=workspace_id, mode="test")
        headers = {"Authorization": f"Bearer {key}"}
        if any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in operation["parameters"]):
            headers["Idempotency-Key"] = str(uuid.uuid4())
        [expected] = [int(status) for status in operation["responses"] if status.startswith("2")]
        response = getattr(testapp, f"{method}_json")(_url(path, operation, sandbox_clinic_id), body["example"],
                                                       headers=headers, expect_errors=True)
        if response.status_int != expected:
            failures.append(f"{method.upper()} {path}: {response.status_int} (expected {expected}) {response.text}")
    assert not failures, "\n".join(failures)
