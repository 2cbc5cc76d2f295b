from clinicrecords.resources import Resource, parse_uuid


class EncounterCollection(Resource):
    """/v1/clinics/{clinic_id}/encounters"""

    def __getitem__(self, name):
        encounter = self.request.find_service(name="encounters").get(parse_uuid(name))
        if encounter is None:
            raise KeyError(name)
        return EncounterResource(self, name, encounter)


class EncounterResource(Resource):
    """/v1/clinics/{clinic_id}/encounters/{encounter_id}"""

    def __init__(self, parent, name, encounter):
        super().__init__(parent, name)
        self.encounter = encounter
