"""Coverage gates claims (spec, Coverage): `claim create` needs a confirmed, active coverage of that patient
and payer; otherwise it exits 2 with the reason and writes nothing."""

from sqlalchemy import func, select

from clinicrecords.insurance.models import Claim
from clinicrecords.insurance.schemas import SANDBOX_COVERAGE_IDS, SANDBOX_PAYER_IDS
from clinicrecords.patients.schemas import SANDBOX_PATIENT_IDS
from tests.common.cli import ok, refused
from tests.insurance.helpers import sandbox_caller, staff

NORTHWIND, BLUEGATE = str(SANDBOX_PAYER_IDS[0]), str(SANDBOX_PAYER_IDS[2])


def _claims(world, clinic_id):
    with staff(world, clinic_id) as (db, _):
        return db.scalar(select(func.count()).select_from(Claim))


def _create(clinic_id, patient, payer):
    return ("claim", "create", "--clinic", clinic_id, "--insurer", payer, "--patient", patient, "--amount", "10")


def test_a_claim_needs_a_confirmed_active_coverage_of_that_patient_and_payer(world):
    clinic_id = str(sandbox_caller(world).clinic_id)
    before = _claims(world, clinic_id)
    # Patient 2 has no coverage at all; patient 1 is covered by Northwind, not Bluegate.
    assert "no coverage" in refused(*_create(clinic_id, str(SANDBOX_PATIENT_IDS[1]), NORTHWIND))
    assert "no coverage" in refused(*_create(clinic_id, str(SANDBOX_PATIENT_IDS[0]), BLUEGATE))
    # Patient 3's Bluegate coverage is unconfirmed, then confirmed but not active.
    unconfirmed = _create(clinic_id, str(SANDBOX_PATIENT_IDS[2]), BLUEGATE)
    assert "not confirmed" in refused(*unconfirmed)
    ok("coverage", "confirm", "--clinic", clinic_id, SANDBOX_COVERAGE_IDS[1])
    assert "not active" in refused(*unconfirmed)
    assert _claims(world, clinic_id) == before
    ok("coverage", "activate", "--clinic", clinic_id, SANDBOX_COVERAGE_IDS[1])
    claim = ok(*unconfirmed)
    assert (claim["patient_id"], claim["insurer_id"], claim["status"]) == (
        str(SANDBOX_PATIENT_IDS[2]), BLUEGATE, "awaiting_payment")
    assert _claims(world, clinic_id) == before + 1


def test_a_coverage_the_api_returned_to_unconfirmed_no_longer_backs_claims(world, testapp):
    caller = sandbox_caller(world)
    clinic_id, patient = str(caller.clinic_id), str(SANDBOX_PATIENT_IDS[0])
    ok(*_create(clinic_id, patient, NORTHWIND))
    changed = testapp.patch_json(caller.url(f"coverages/{SANDBOX_COVERAGE_IDS[0]}"), {"member_id": "NWH-100-0001"},
                                 headers=caller.headers).json["data"]
    assert changed["confirmation_status"] == "unconfirmed"
    assert "not confirmed" in refused(*_create(clinic_id, patient, NORTHWIND))
