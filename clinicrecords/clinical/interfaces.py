"""What other contexts may know of the clinical context: its services, looked up by interface."""

from zope.interface import Interface


class IChartItems(Interface):
    """Reads of one kind of chart item for API callers: get, list. Built from the clinic scope."""


class IAllergies(IChartItems):
    pass


class IConditions(IChartItems):
    pass


class IMedicationStatements(IChartItems):
    pass


class IReferrals(IChartItems):
    pass


class IProposalService(Interface):
    """Sends of the calling key (the scope's identity) to the scope's clinic: propose, propose_change; each
    becomes a submission of the review queue."""
