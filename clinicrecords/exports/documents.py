"""The FHIR documents of the Bulk Data flow: the base's CapabilityStatement and the completion manifest."""

from clinicrecords.exports.search_parameters import SEARCH_PARAMETERS
from clinicrecords.exports.sources import BASE_TYPES, EXPORT_TYPES, NAMED_TYPES

BULK_DATA = "http://hl7.org/fhir/uv/bulkdata"
# When what the base offers last changed: the document is the same for every clinic and every request.
CAPABILITIES_DATE = "2026-11-29"


def capability_statement(base_url):
    """What the clinic's FHIR base offers: the two export operations, the types they write, and each type's
    read and search with its parameters."""
    def resource(name):
        entry = {"type": name, "interaction": [{"code": "read"}, {"code": "search-type"}],
                 "searchParam": [{"name": parameter, "type": kind.kind}
                                 for parameter, kind in SEARCH_PARAMETERS[name].items()]}
        if name == "Patient":
            entry["operation"] = [{"name": "export", "definition": f"{BULK_DATA}/OperationDefinition/patient-export"}]
        return entry

    return {
        "resourceType": "CapabilityStatement",
        "status": "active",
        "date": CAPABILITIES_DATE,
        "publisher": "Clinic Records",
        "kind": "instance",
        "instantiates": [f"{BULK_DATA}/CapabilityStatement/bulk-data"],
        "implementation": {"description": "A clinic's FHIR base for Bulk Data export", "url": base_url},
        "fhirVersion": "4.0.1",
        "format": ["application/fhir+json"],
        "rest": [{
            "mode": "server",
            "documentation": "Bearer API keys (Authorization: Bearer ...). A type is exported only to a key "
                             "holding its read permission; Patient/$export writes the patient compartment's "
                             "types and, of " + " and ".join(sorted(NAMED_TYPES)) + ", those its records "
                             "name (the clinicians of its encounters, the payers of its coverages). Each type is read "
                             "({type}/{id}) and searched ({type}?..., or POST {type}/_search with a form body) under "
                             "the same read permission; " + ", ".join(sorted(set(BASE_TYPES) - set(EXPORT_TYPES)))
                             + " is read and searched, not exported.",
            "resource": [resource(name) for name in BASE_TYPES],
            "operation": [{"name": "export", "definition": f"{BULK_DATA}/OperationDefinition/export"}],
        }],
    }


def manifest(job, files, file_url, restarted):
    """The completion manifest: `files` is {section: [ExportFile]}; `file_url(export_file)` its address."""
    document = {
        "transactionTime": job.transaction_time.isoformat(),
        "request": job.request_url,
        "requiresAccessToken": True,
        "output": [{"type": found.type, "url": file_url(found), "count": found.count} for found in files["output"]],
        "error": [{"type": "OperationOutcome", "url": file_url(found)} for found in files["error"]],
    }
    if job.since is not None:
        document["deleted"] = [{"type": "Bundle", "url": file_url(found), "count": found.count}
                               for found in files["deleted"]]
    if restarted:
        document["extension"] = {"attempts": job.attempt}
    return document
