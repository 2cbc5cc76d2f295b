"""FHIR Bulk Data export ($export): a clinic's records as NDJSON files, written by a worker, read by the key that
asked (docs/bulk-export.md)."""

from zope.interface import Interface

from clinicrecords.api.problems import add_problem_dialect
from clinicrecords.exports import tasks  # noqa: F401  (registers the tasks and the worker hooks)
from clinicrecords.exports.interfaces import IExportService
from clinicrecords.exports.outcomes import problem_outcome, under_fhir_base
from clinicrecords.exports.resources import FhirBase, set_sandbox_examples
from clinicrecords.exports.services import export_service_factory
from clinicrecords.exports.storage import set_root
from clinicrecords.exports.views import add_search_views
from clinicrecords.exports.metrics import export_readings


def includeme(config):
    set_root(config)
    add_problem_dialect(config, under_fhir_base, problem_outcome)
    config.add_clinic_collection("fhir", FhirBase)
    config.add_public_clinic_path("fhir", "metadata")
    # Once every context has registered its clinic collections (the reads' documentation borrows their examples).
    config.action(None, lambda: set_sandbox_examples(config.registry), order=1)
    config.register_service_factory(export_service_factory, iface=IExportService, context=Interface)
    config.scan(".views")
    add_search_views(config)
    config.add_metric_source(export_readings)
