"""FHIR Bulk Data export ($export): a clinic's records as NDJSON files, written by a worker, read by the key that
asked (docs/bulk-export.md)."""
