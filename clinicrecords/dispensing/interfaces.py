"""The dispensing flags service, found with `request.find_service(IDispensingFlags)`: built for the clinic the
context hangs under and the calling key's organization."""

from zope.interface import Interface


class IDispensingFlags(Interface):
    def list(query):
        """A page of flags of the caller's enrolled, unrestricted patients (empty for a clinic-owned key)."""
