from clinicrecords.care_providers.interfaces import ICareProviderService
from clinicrecords.care_providers.schemas import SANDBOX_APP_CARE_PROVIDER_ID
from clinicrecords.resources import Collection, Resource


class CareProviderResource(Resource):
    """/v1/clinics/{clinic_id}/care-providers/{care_provider_id}"""

    sandbox_example_id = SANDBOX_APP_CARE_PROVIDER_ID

    def __init__(self, parent, name, contact):
        super().__init__(parent, name)
        self.contact = contact


class CareProviderCollection(Collection):
    """/v1/clinics/{clinic_id}/care-providers"""
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)

    service = ICareProviderService
    item_resource = CareProviderResource
    item_parameter = "care_provider_id"
