from clinicrecords.resources import Resource


class Dispensing(Resource):
    """/v1/clinics/{clinic_id}/dispensing: a grouping whose only child is flags."""

    def __getitem__(self, name):
        if name == "flags":
            return DispensingFlagCollection(self, name)
        raise KeyError(name)


class DispensingFlagCollection(Resource):
    """/v1/clinics/{clinic_id}/dispensing/flags"""
