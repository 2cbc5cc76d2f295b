from clinicrecords.resources import Branch, Resource


class DispensingFlagCollection(Resource):
    """/v1/clinics/{clinic_id}/dispensing/flags"""
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)


class Dispensing(Branch):
    """/v1/clinics/{clinic_id}/dispensing: a grouping whose only child is flags."""

    children = {"flags": DispensingFlagCollection}
