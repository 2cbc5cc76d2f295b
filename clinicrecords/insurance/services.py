"""What other packages may call in the insurance context (the import contract: services and interfaces only)."""

from clinicrecords.insurance import coverages
from clinicrecords.insurance.coverages import (coverage_payer_ids_for_export, coverage_rows_for_export,
                                               payer_rows_for_export)

__all__ = ["activate_coverage_as_staff", "confirm_coverage_as_staff", "coverage_payer_ids_for_export",
           "coverage_rows_for_export", "coverage_staff_result", "payer_rows_for_export"]


def coverage_staff_result(coverage):
    """What a staff action on a coverage reports (operator command, the sandbox's test helper)."""
    return {"coverage_id": str(coverage.id), "confirmation_status": coverage.confirmation_status,
            "coverage_active": coverage.coverage_active}


def confirm_coverage_as_staff(db, coverage_id):
    return coverage_staff_result(coverages.confirm_coverage(db, coverage_id))


def activate_coverage_as_staff(db, coverage_id):
    return coverage_staff_result(coverages.activate_coverage(db, coverage_id))
