from clinicrecords.providers.interfaces import IProviderService
from clinicrecords.providers.schemas import SANDBOX_PROVIDER_IDS
from clinicrecords.resources import Collection, Resource


class ProviderResource(Resource):
    """/v1/clinics/{clinic_id}/providers/{provider_id}"""

    sandbox_example_id = SANDBOX_PROVIDER_IDS[0]

    def __init__(self, parent, name, provider):
        super().__init__(parent, name)
        self.provider = provider


class ProviderCollection(Collection):
    """/v1/clinics/{clinic_id}/providers"""

    service = IProviderService
    item_resource = ProviderResource
    item_parameter = "provider_id"
