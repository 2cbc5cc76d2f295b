from clinicrecords.resources import Collection, Resource
from clinicrecords.scheduling.interfaces import IAppointmentService
from clinicrecords.scheduling.schemas import SANDBOX_APPOINTMENT_ID


class AppointmentResource(Resource):
    """/v1/clinics/{clinic_id}/appointments/{appointment_id}"""

    sandbox_example_id = SANDBOX_APPOINTMENT_ID

    def __init__(self, parent, name, appointment):
        super().__init__(parent, name)
        self.appointment = appointment


class AppointmentCollection(Collection):
    """/v1/clinics/{clinic_id}/appointments"""

    audited = True  # patient data: every request is in the audit trail (clinicrecords.audit)
    service = IAppointmentService
    item_resource = AppointmentResource
    item_parameter = "appointment_id"
