"""The insurance services built from a plain scope (no request), over a real sandbox clinic."""

import datetime
import uuid
from decimal import Decimal

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.insurance.advices import PaymentAdviceService
from clinicrecords.insurance.coverages import CoverageService
from clinicrecords.insurance.payers import PayerService
from clinicrecords.insurance.schemas import SANDBOX_CLAIM_IDS, SANDBOX_COVERAGE_IDS, SANDBOX_PAYER_IDS
from tests.common.scopes import clinic_session, plain_cursors, scope_over
from tests.insurance.helpers import restrict


@pytest.fixture
def sandbox(world):
    return world.workspace()


def test_payers_answer_enabled_payers_only(world, registry, sandbox):
    _, clinic_id = sandbox
    with clinic_session(world, clinic_id) as (db, _):
        payers = PayerService(db, plain_cursors(registry))
        assert payers.get(SANDBOX_PAYER_IDS[0]).display_name == "Northwind Health Assurance"
        assert payers.get(SANDBOX_PAYER_IDS[3]) is None  # disabled
        page = payers.list({"limit": 10, "q": "sante"})
        assert [p.id for p in page.items] == [SANDBOX_PAYER_IDS[1]]


def test_coverages_of_a_restricted_patient_are_hidden(world, registry, sandbox):
    _, clinic_id = sandbox
    with clinic_session(world, clinic_id) as (db, _):
        coverage = CoverageService(db, plain_cursors(registry)).get(SANDBOX_COVERAGE_IDS[0])
        patient_id = coverage.patient_id
    restrict(world, clinic_id, patient_id)
    with clinic_session(world, clinic_id) as (db, _):
        coverages = CoverageService(db, plain_cursors(registry))
        assert coverages.get(SANDBOX_COVERAGE_IDS[0]) is None
        assert SANDBOX_COVERAGE_IDS[0] not in {c.id for c in coverages.list({"limit": 100}).items}
        assert coverages.get(SANDBOX_COVERAGE_IDS[1]) is not None


def _advice(amount="250.00"):
    return {"insurance_company_id": SANDBOX_PAYER_IDS[0], "paid_on": datetime.date(2025, 3, 14),
            "amount": Decimal(amount), "method": "bank_transfer",
            "allocations": [{"claim_id": SANDBOX_CLAIM_IDS[0], "amount": Decimal(amount)}]}


def test_payment_advices_come_from_the_scope_s_workspace(world, sandbox):
    workspace_id, clinic_id = sandbox
    with clinic_session(world, clinic_id) as (db, clinic):
        advice = PaymentAdviceService(scope_over(db, clinic, workspace_id)).create(_advice())
        assert (advice.workspace_id, advice.status, advice.currency) == (workspace_id, "advised", "USD")
        with pytest.raises(Problem) as refused:
            PaymentAdviceService(scope_over(db, clinic, uuid.uuid4())).create(_advice())
        assert refused.value.code == "insurer_not_linked"
