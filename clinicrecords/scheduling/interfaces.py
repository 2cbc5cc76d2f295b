"""What other contexts may know of the scheduling context: its services, looked up by interface."""

from zope.interface import Interface


class IAppointmentService(Interface):
    """Appointments of one clinic: get, list, book, cancel. Built from the clinic scope (its session and
    clinic, whose time zone the slots follow)."""
