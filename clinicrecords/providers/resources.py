from clinicrecords.resources import Resource, parse_uuid


class ProviderCollection(Resource):
    """/v1/clinics/{clinic_id}/providers"""

    def __getitem__(self, name):
        provider = self.request.find_service(name="providers").get(parse_uuid(name))
        if provider is None:
            raise KeyError(name)
        return ProviderResource(self, name, provider)


class ProviderResource(Resource):
    """/v1/clinics/{clinic_id}/providers/{provider_id}"""

    def __init__(self, parent, name, provider):
        super().__init__(parent, name)
        self.provider = provider
