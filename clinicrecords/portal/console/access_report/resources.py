from clinicrecords.portal.console.resources import ClinicPart


class AccessReportPage(ClinicPart):
    """/clinics/{id}/access?patient=…: who read what for one patient (and `/export.csv`)."""
