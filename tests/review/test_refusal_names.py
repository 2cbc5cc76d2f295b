"""A 403 for a submission names what would grant it (the access context registers these names).

The `clinic` fixture is tests/review/conftest.py's."""


def test_withdrawing_without_the_kinds_write_permission_names_it(clinic, testapp, world):
    sent = clinic.allergy("Peanut").json["data"]
    world.grant(clinic.connected.workspace_id, clinic.id, {"allergies:read"})
    body = testapp.delete(clinic.url(f"submissions/{sent['submission_id']}"), headers=clinic.headers,
                          status=403).json
    assert body["code"] == "scope_missing"
    assert body["detail"] == ("This key lacks the permission the write permission of the submission's kind "
                              "(e.g. allergies:write).")


def test_reading_without_the_kinds_permissions_names_them(clinic, testapp, world):
    sent = clinic.allergy("Peanut").json["data"]
    world.grant(clinic.connected.workspace_id, clinic.id, {"conditions:read"})
    body = testapp.get(clinic.url(f"submissions/{sent['submission_id']}"), headers=clinic.headers,
                       status=403).json
    assert body["detail"] == ("This key lacks the permission the read or write permission of the submission's "
                              "kind (e.g. allergies:read).")
