"""The clinic scope: who calls, which clinic, with which permissions, on which bound session."""

from dataclasses import dataclass

from zope.interface import implementer

from clinicrecords.clinics.interfaces import IClinicScope


@implementer(IClinicScope)
@dataclass(frozen=True, slots=True)
class ClinicScope:
    identity: object
    clinic: object
    granted: frozenset
    db: object

    @property
    def clinic_id(self):
        return self.clinic.id
