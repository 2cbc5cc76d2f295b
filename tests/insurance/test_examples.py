"""Every insurance body EXAMPLE works as-is against a fresh sandbox of any workspace."""

from clinicrecords.insurance.schemas import (
    SANDBOX_COVERAGE_IDS,
    CoverageCreate,
    CoverageUpdate,
    PaymentAdviceCreate,
)
from tests.insurance.helpers import sandbox_caller


def test_examples_work_in_any_sandbox(world, testapp):
    for _ in range(2):
        caller = sandbox_caller(world)
        testapp.post_json(caller.url("coverages"), CoverageCreate.EXAMPLE, headers=caller.write_headers(),
                          status=201)
        testapp.patch_json(caller.url(f"coverages/{SANDBOX_COVERAGE_IDS[0]}"), CoverageUpdate.EXAMPLE,
                           headers=caller.headers, status=200)
        testapp.post_json(caller.url("insurance/payment-advices"), PaymentAdviceCreate.EXAMPLE,
                          headers=caller.write_headers(), status=201)
        # An advice changes nothing it is checked against, so the example works again and again.
        testapp.post_json(caller.url("insurance/payment-advices"), PaymentAdviceCreate.EXAMPLE,
                          headers=caller.write_headers(), status=201)
