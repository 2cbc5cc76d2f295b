"""The clinic scope: who calls, which clinic, with which permissions, on which bound session."""

from dataclasses import dataclass, field

from zope.interface import implementer

from clinicrecords.clinics.interfaces import IClinicScope


@implementer(IClinicScope)
@dataclass(frozen=True, slots=True)
class ClinicScope:
    identity: object
    clinic: object
    granted: frozenset
    db: object
    # Kept as a value when the scope is built: the audit trail and the request log read it after the
    # request's transaction, and nothing they read may depend on what the clinic row still holds by then.
    clinic_id: object = field(default=None)

    def __post_init__(self):
        if self.clinic_id is None:
            object.__setattr__(self, "clinic_id", self.clinic.id)
