"""Plan features (`clinic set`): patient import needs the API add-on and the data agreement, the change feed
needs API access; every feature is on until an operator turns it off."""

import datetime

import pytest
from sqlalchemy import select

from clinicrecords.clinics.models import Clinic
from tests.common.clinical import admin, headers

ROWS = {"input_format": "json_array", "data": [{"given_name": "Ada", "family_name": "Byron",
                                                "birth_date": "1990-01-01"}]}


def _imports(clinic_id):
    return f"/v1/clinics/{clinic_id}/patient-imports"


def test_new_clinics_and_sandboxes_have_every_feature(world, engine):
    clinic_id = world.clinic()
    _, sandbox_id = world.workspace()
    with world.db() as db:
        for clinic in (db.get(Clinic, clinic_id), db.get(Clinic, sandbox_id)):
            assert (clinic.api_access, clinic.api_addon, clinic.data_agreement, clinic.timezone) == (
                True, True, True, "UTC")


def test_clinic_set_turns_features_off_and_on(world):
    clinic_id = world.clinic()
    status, result, _ = admin("clinic", "set", clinic_id, "--no-api-addon", "--no-data-agreement")
    assert (status, result) == (0, {"clinic_id": str(clinic_id), "api_access": True, "api_addon": False,
                                    "data_agreement": False, "timezone": "UTC"})
    status, result, _ = admin("clinic", "set", clinic_id, "--api-addon", "--no-api-access",
                              "--timezone", "Europe/Berlin")
    assert (result["api_access"], result["api_addon"], result["data_agreement"], result["timezone"]) == (
        False, True, False, "Europe/Berlin")
    # No option: nothing changes, the answer shows the features.
    assert admin("clinic", "set", clinic_id)[1] == result


@pytest.mark.parametrize("argv", [
    ["--api-addon", "--no-api-addon"],
    ["--timezone", "Mars/Olympus_Mons"],
    ["--timezone", "../etc/passwd"],
    ["--bogus"],
])
def test_clinic_set_refuses_bad_input_and_changes_nothing(world, argv):
    clinic_id = world.clinic()
    status, result, err = admin("clinic", "set", clinic_id, "--no-api-access", *argv)
    assert status == 2 and result is None  # argparse writes its own refusals to the process stderr
    with world.db() as db:
        clinic = db.scalar(select(Clinic).where(Clinic.id == clinic_id))
        assert (clinic.api_access, clinic.timezone) == (True, "UTC")


def test_clinic_set_of_an_unknown_clinic(world):
    status, _, err = admin("clinic", "set", "00000000-0000-0000-0000-000000000000", "--api-access")
    assert status == 2 and "no clinic" in err


@pytest.mark.parametrize("flag", ["--no-api-addon", "--no-data-agreement"])
def test_patient_import_needs_the_addon_and_the_agreement(world, testapp, flag):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id)
    admin("clinic", "set", clinic_id, flag)
    refused = testapp.post_json(_imports(clinic_id), ROWS, headers=headers(key), status=403)
    assert refused.json["code"] == "plan_feature_missing"
    admin("clinic", "set", clinic_id, "--api-addon", "--data-agreement")
    testapp.post_json(_imports(clinic_id), ROWS, headers=headers(key), status=201)


def test_running_valid_rows_needs_the_addon_too(world, testapp):
    clinic_id = world.clinic()
    key = world.key(clinic_id=clinic_id)
    rows = {"input_format": "json_array", "data": [ROWS["data"][0], {"given_name": "X", "family_name": "Y",
                                                                     "birth_date": "not a date"}]}
    job = testapp.post_json(_imports(clinic_id), rows, headers=headers(key)).json["data"]
    assert job["status"] == "needs_review"
    admin("clinic", "set", clinic_id, "--no-api-addon")
    refused = testapp.post(f"{_imports(clinic_id)}/{job['id']}/run-valid-rows", headers=headers(key), status=403)
    assert refused.json["code"] == "plan_feature_missing"


def test_the_change_feed_needs_api_access(world, testapp, connected):
    feed = f"/v1/clinics/{connected.clinic_id}/events"
    clinic_key = world.key(clinic_id=connected.clinic_id)
    testapp.get(feed, headers=connected.headers, status=200)
    admin("clinic", "set", connected.clinic_id, "--no-api-access")
    for key_headers in (connected.headers, headers(clinic_key)):
        refused = testapp.get(feed, headers=key_headers, status=403)
        assert refused.json["code"] == "plan_feature_missing"
        assert "API access" in refused.json["detail"]
    # Other routes are not part of this feature.
    testapp.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers, status=200)


def test_usage_counts_the_clinics_a_workspace_was_connected_to_in_the_month(world):
    workspace_id, _ = world.workspace()
    first, second = world.clinic(), world.clinic()
    world.grant(workspace_id, first)
    world.grant(workspace_id, second)
    world.revoke_connection(workspace_id, second)
    # Revoked this month: it was still connected during the month, so it counts.
    assert admin("usage", "show", "--workspace", workspace_id)[1]["connected_clinics"] == 2
    # Before either connection existed.
    assert admin("usage", "show", "--workspace", workspace_id, "--month", "2020-02")[1]["connected_clinics"] == 0
    next_month = (datetime.datetime.now(datetime.UTC).date().replace(day=1) + datetime.timedelta(days=32))
    assert admin("usage", "show", "--workspace", workspace_id,
                 "--month", f"{next_month:%Y-%m}")[1]["connected_clinics"] == 1
