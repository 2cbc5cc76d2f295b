"""What other contexts may know of the clinical context: its services, looked up by interface."""

from zope.interface import Interface


class IChartItems(Interface):
    """Reads of one kind of chart item for API callers, built from the clinic scope. One is registered per kind,
    named by the kind's resource type: `find_service(IChartItems, name="allergy")`."""

    def get(item_id):
        """The item as a read-only row, or None when absent or its patient is restricted."""

    def list(query, cursors):
        """A page of rows (`patient_id`, `updated_since`), oldest first."""


class IProposalService(Interface):
    """Sends of the calling key (the scope's identity) to the scope's clinic; each becomes a submission of the
    review queue."""

    def propose(resource_type, data):
        """A new item (or a statement of no known allergies) sent for review: the submission."""

    def propose_change(resource_type, record, data, status_field):
        """A change of an item on the chart sent for review: the submission."""

    def revise(kind, submission, patch):
        """The sender's pending `submission` once `patch` (a JSON merge patch of what was sent) is merged in,
        checked as a new send of the same kind and action would be: a `Revision`, or 400 invalid_request."""
