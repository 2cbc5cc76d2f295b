from zope.interface import Interface


class IAccessReport(Interface):
    """Who read what: a patient's records as the API's audit trail shows them read or written."""

    def patients(clinic_id, text):
        """Patients whose id is `text`, or whose names contain each word of it (at most 20)."""

    def patient(clinic_id, patient_id):
        """The patient, or None."""

    def accesses(clinic_id, patient_id):
        """The patient's accesses (`Access`: when, organization, key, method, route, status), newest first."""

    def csv(accesses):
        """The accesses as CSV text (the download)."""
