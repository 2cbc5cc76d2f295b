from clinicrecords.resources import Resource, parse_uuid


class CareProviderCollection(Resource):
    """/v1/clinics/{clinic_id}/care-providers"""

    def __getitem__(self, name):
        contact = self.request.find_service(name="care_providers").get(parse_uuid(name))
        if contact is None:
            raise KeyError(name)
        return CareProviderResource(self, name, contact)


class CareProviderResource(Resource):
    """/v1/clinics/{clinic_id}/care-providers/{care_provider_id}"""

    def __init__(self, parent, name, contact):
        super().__init__(parent, name)
        self.contact = contact
