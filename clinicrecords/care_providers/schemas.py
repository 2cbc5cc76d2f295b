from marshmallow import fields, validate

from clinicrecords.api.pagination import UpdatedSinceListQuery
from clinicrecords.api.schemas import JsonBoolean, RequestSchema
from clinicrecords.patients.interfaces import SANDBOX_PATIENT_IDS
from clinicrecords.providers.services import NPI_PATTERN, validate_npi
from clinicrecords.sandbox.interfaces import sandbox_id

# pcp is the spec's; the others are this service's (docs/decisions/0008-outside-care-providers.md).
TYPES = ("pcp", "referring", "specialist", "dentist", "therapist", "pharmacist", "other")
SOURCES = ("clinic", "api")

SANDBOX_CARE_PROVIDER_IDS = [sandbox_id(f"care-provider:{n}") for n in range(1, 4)]
# Added by the sandbox's own workspace: its test keys may change or remove it.
SANDBOX_APP_CARE_PROVIDER_ID = sandbox_id("care-provider:app-1")


def _text(maximum):
    return fields.String(validate=validate.Length(1, maximum), allow_none=True)


class CareProviderUpdate(RequestSchema):
    EXAMPLE = {"phone": "+1 555 0142", "is_primary": True}

    type = fields.String(validate=validate.OneOf(TYPES))
    name = fields.String(validate=validate.Length(1, 200))
    is_primary = JsonBoolean()
    practice_name = _text(200)
    specialty = _text(100)
    npi = fields.String(validate=validate_npi, allow_none=True, metadata={"pattern": NPI_PATTERN})
    phone = _text(40)
    fax = _text(40)
    address = _text(500)
    origin_assistant_name = _text(100)

    def __init__(self, **kwargs):
        kwargs.setdefault("partial", True)
        super().__init__(**kwargs)


class CareProviderCreate(CareProviderUpdate):
    EXAMPLE = {"patient_id": str(SANDBOX_PATIENT_IDS[0]), "type": "specialist", "name": "Dr. Lena Osei",
               "is_primary": False, "practice_name": "Harbour Dermatology", "specialty": "dermatology",
               "npi": "1234567893", "phone": "+1 555 0140", "fax": "+1 555 0141",
               "address": "40 Quay Street, Springfield, MA 01101", "origin_assistant_name": "Intake Assistant"}

    patient_id = fields.UUID(required=True)
    type = fields.String(required=True, validate=validate.OneOf(TYPES))
    name = fields.String(required=True, validate=validate.Length(1, 200))
    is_primary = JsonBoolean(load_default=False)

    def __init__(self, **kwargs):
        super().__init__(partial=False, **kwargs)


class CareProviderListQuery(UpdatedSinceListQuery):
    patient_id = fields.UUID()
    type = fields.String(validate=validate.OneOf(TYPES))


class CareProviderOut(RequestSchema):
    """The plain outside care provider shape (documentation). The clinic's notes are never part of it."""

    id = fields.UUID()
    patient_id = fields.UUID()
    type = fields.String(validate=validate.OneOf(TYPES))
    name = fields.String()
    is_primary = fields.Boolean()
    source = fields.String(validate=validate.OneOf(SOURCES))
    editable = fields.Boolean()
    practice_name = fields.String(allow_none=True)
    specialty = fields.String(allow_none=True)
    npi = fields.String(allow_none=True)
    phone = fields.String(allow_none=True)
    fax = fields.String(allow_none=True)
    address = fields.String(allow_none=True)
    origin_assistant_name = fields.String(allow_none=True)
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
