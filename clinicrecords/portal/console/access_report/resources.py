from clinicrecords.portal.console.resources import ClinicPart


class AccessReportPage(ClinicPart):
    """/clinics/{id}/access?patient=…: who read what for one patient (and `/export.csv`)."""

    # Patient data: opens only for staff with a second factor (portal.accounts.factors.required).
    second_factor_required = "patient_data"
