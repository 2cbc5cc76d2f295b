from clinicrecords.api.render import iso


def patient_import_json(job, request):
    return {
        "id": str(job.id),
        "status": job.status,
        "input_format": job.input_format,
        "row_count": job.row_count,
        "last_processed_row": job.last_processed_row,
        "counts": dict(job.counts),
        "row_errors": list(job.row_errors),
        "created_at": iso(job.created_at),
        "updated_at": iso(job.updated_at),
        "started_by": job.started_by,
        "valid_only_run_at": iso(job.valid_only_run_at),
    }
