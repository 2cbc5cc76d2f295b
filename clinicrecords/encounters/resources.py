from clinicrecords.encounters.interfaces import IEncounterService
from clinicrecords.encounters.schemas import SANDBOX_APP_DRAFT_ID
from clinicrecords.resources import Collection, Resource


class EncounterResource(Resource):
    """/v1/clinics/{clinic_id}/encounters/{encounter_id}"""

    sandbox_example_id = SANDBOX_APP_DRAFT_ID

    def __init__(self, parent, name, encounter):
        super().__init__(parent, name)
        self.encounter = encounter


class EncounterCollection(Collection):
    """/v1/clinics/{clinic_id}/encounters"""
    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)

    service = IEncounterService
    item_resource = EncounterResource
    item_parameter = "encounter_id"
