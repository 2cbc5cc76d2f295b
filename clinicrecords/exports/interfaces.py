from zope.interface import Attribute, Interface


class IExportService(Interface):
    """A clinic's Bulk Data exports, as the calling key sees them (its own jobs, in this clinic only).
    Provided by clinicrecords.exports.services.ExportService."""

    root = Attribute("The directory the clinic's export files are under (`exports.path`).")

    def kick_off(wanted, request_url, base_url, owner_id=None):
        """Queue the export `wanted` (an `ExportRequest`) and return its job; 429 too_many_exports (problem)
        when the key already has `exports.max_running_per_key` exports queued or running here, 429
        too_many_export_kickoffs when it kicked off `exports.max_kickoffs_per_hour` in the last hour."""

    def get(job_id):
        """The job, or None when absent, expired, another key's or another clinic's (one 404 for all)."""

    def poll(job):
        """The job's `Poll` (status, progress, Retry-After); 429 export_polled_too_soon (problem) when a
        running job is polled before the Retry-After it was given."""

    def files(job):
        """{section: [ExportFile]} of a completed job (output, error, deleted), in manifest order."""

    def cancel(job):
        """Cancel the job and remove its files (a worker still writing it throws its attempt away); the job is
        found by no one afterwards."""

    def get_file(file_id):
        """The file of a completed job `get` finds, or None."""

    def readable(export_file):
        """What a download of the file serves now (a `Download`: the file without the lines of patients
        restricted, or encounters marked sensitive, since it was written); 403 scope_missing (problem) when the
        key no longer holds the read permission of the file's types, None when the file is gone."""
