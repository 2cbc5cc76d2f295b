"""Patient bodies. The same validation serves create, update and every row of a patient import."""

from marshmallow import ValidationError, fields, validate

from clinicrecords.api.pagination import UpdatedSinceListQuery
from clinicrecords.api.schemas import RequestSchema
from clinicrecords.sandbox.interfaces import sandbox_id

SEXES = ("female", "male", "other", "unknown")

# Clinical lists never ride on a patient: each has its own reviewed route (spec, Versioning rule 3).
REFUSED_CLINICAL_FIELDS = {
    "allergies": "Allergies are not set on a patient: send each one with POST /v1/clinics/{clinic_id}/allergies "
                 "for clinician review.",
    "chronic_conditions": "Conditions are not set on a patient: send each one with POST "
                          "/v1/clinics/{clinic_id}/conditions for clinician review.",
    "current_medications": "Current medications cannot be set through the API: report a medicine with POST "
                           "/v1/clinics/{clinic_id}/medication-statements.",
}


class AddressSchema(RequestSchema):
    line = fields.List(fields.String(validate=validate.Length(1, 200)), validate=validate.Length(max=4))
    city = fields.String(validate=validate.Length(1, 100))
    region = fields.String(validate=validate.Length(1, 100))
    postal_code = fields.String(validate=validate.Length(1, 20))
    country = fields.String(validate=validate.Regexp(r"^[A-Z]{2}$", error="Use an ISO 3166-1 alpha-2 code."))


class PatientCreate(RequestSchema):
    EXAMPLE = {
        "given_name": "Maya", "family_name": "Okafor", "birth_date": "1988-04-12", "sex": "female",
        "phone": "+1 555 0100", "email": "maya.okafor@example.org", "external_id": "EHR-10442",
        "address": {"line": ["12 Harbour Road"], "city": "Springfield", "postal_code": "01101", "country": "US"},
    }

    given_name = fields.String(required=True, validate=validate.Length(1, 100))
    family_name = fields.String(required=True, validate=validate.Length(1, 100))
    birth_date = fields.Date(required=True)
    sex = fields.String(validate=validate.OneOf(SEXES))
    phone = fields.String(validate=validate.Length(1, 40), allow_none=True)
    email = fields.Email(validate=validate.Length(max=254), allow_none=True)
    address = fields.Nested(AddressSchema, allow_none=True)
    external_id = fields.String(validate=validate.Length(1, 64), allow_none=True)

    def load(self, data, *args, **kwargs):
        # The clinical lists are reported with their own message, not as merely unknown fields.
        if isinstance(data, dict) and REFUSED_CLINICAL_FIELDS.keys() & data.keys():
            raise ValidationError({name: [REFUSED_CLINICAL_FIELDS[name]] for name in data
                                   if name in REFUSED_CLINICAL_FIELDS})
        return super().load(data, *args, **kwargs)


class PatientUpdate(PatientCreate):
    EXAMPLE = {"phone": "+1 555 0199", "address": {"line": ["14 Harbour Road"], "city": "Springfield",
                                                   "postal_code": "01101", "country": "US"}}

    def __init__(self, **kwargs):
        super().__init__(partial=True, **kwargs)


class PatientListQuery(UpdatedSinceListQuery):
    family_name = fields.String(validate=validate.Length(1, 100))


SANDBOX_PATIENT_IDS = [sandbox_id(f"patient:{n}") for n in range(1, 6)]


class PatientOut(RequestSchema):
    """The plain patient shape (documentation)."""

    id = fields.UUID()
    given_name = fields.String()
    family_name = fields.String()
    birth_date = fields.Date()
    sex = fields.String(validate=validate.OneOf(SEXES), allow_none=True)
    phone = fields.String(allow_none=True)
    email = fields.String(allow_none=True)
    address = fields.Nested(AddressSchema, allow_none=True)
    external_id = fields.String(allow_none=True)
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
