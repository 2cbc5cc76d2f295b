from clinicrecords.portal.console.resources import ClinicPart


class AutoAcceptPage(ClinicPart):
    """/clinics/{id}/auto-accept: per sender and kind; `…/save` and `…/resume` take the sender in the form."""
