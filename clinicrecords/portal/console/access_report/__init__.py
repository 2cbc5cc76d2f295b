"""The clinic console's access report: for one patient, the API requests of the clinic's audit trail that
touched their records, as a page and a CSV download (docs/decisions/0033-clinic-console.md)."""

from clinicrecords.portal.console.access_report.interfaces import IAccessReport
from clinicrecords.portal.console.access_report.resources import AccessReportPage
from clinicrecords.portal.console.access_report.services import access_report_factory
from clinicrecords.portal.console.resources import add_clinic_child


def includeme(config):
    config.register_service_factory(access_report_factory, iface=IAccessReport)
    add_clinic_child(config, "access", AccessReportPage)
    config.scan(".views")
