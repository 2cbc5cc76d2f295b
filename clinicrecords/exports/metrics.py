"""The export jobs' gauges, read when Prometheus scrapes (clinicrecords.observability): one query."""

from sqlalchemy import func, select

from clinicrecords.exports.models import ExportJob

_READINGS = select(func.count().filter(ExportJob.status == "running"),
                   func.count().filter(ExportJob.status == "failed")).select_from(ExportJob)


def export_readings(connection):
    running, failed = connection.execute(_READINGS).one()
    return [("clinicrecords_export_jobs_running", "Export jobs a worker is writing now", running),
            ("clinicrecords_export_jobs_failed", "Export jobs that failed, until they expire", failed)]
