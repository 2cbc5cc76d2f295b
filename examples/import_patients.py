"""Example (c): import patients from NDJSON, show the row errors, run only the valid rows, read the result.

Patient import is for a clinic's own key (an organization's key gets not_found). With the service running
(`scripts/serve` prints a "clinic-owned key"):

    python examples/import_patients.py --base-url http://localhost:6543 --key ehr_live_... \
        --file examples/data/patients.ndjson

The sample file has deliberate mistakes: an impossible birth date, a row carrying allergies (they go through
the review queue, never through an import), a row without a family name and a malformed e-mail address.
Nothing is written while any row is invalid; the example then asks for only the valid rows to be written.
Importing the same file again is refused with `already_imported`, which makes retrying a timed-out call safe:
the example then reads the earlier import instead.
"""

import argparse
import json
import re
import sys
from pathlib import Path

import httpx
from clinicrecords_client import ApiError, Client, Conflict

SAMPLE = Path(__file__).resolve().parent / "data" / "patients.ndjson"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _counts(job):
    names = ("created", "flagged_duplicate", "skipped_already_imported", "failed")
    return ", ".join(f"{name} {job['counts'][name]}" for name in names)


def run(api, text, run_valid_rows=True):
    clinic_id = api.connections()[0]["clinic_id"]
    imports = api.clinic(clinic_id).patient_imports
    rows = [line for line in text.splitlines() if line.strip()]
    print(f"clinic {clinic_id}: importing {len(rows)} rows")

    try:
        job = imports.start(text, input_format="ndjson")
    except Conflict as refused:
        if refused.code != "already_imported":
            raise
        job = imports.get(UUID.search(refused.detail).group())
        print(f"already imported: this content is import {job['id']}")
    else:
        print(f"import {job['id']}: {job['status']}")
        # The errors name the row (1-based), the field and the reason, never the value that failed.
        for error in job["row_errors"]:
            print(f"  row {error['row']} {error['field'] or '(row)'}: {error['reason']}")
        if job["status"] == "needs_review" and run_valid_rows:
            job = imports.run_valid_rows(job["id"])
            print(f"valid rows run: {job['status']}")

    job = imports.get(job["id"])
    print(f"result: {job['status']}; {_counts(job)}; valid-only run at {job['valid_only_run_at']}")
    patients = api.clinic(clinic_id).patients
    failed_rows = {error["row"] for error in job["row_errors"]}
    for number, line in enumerate(rows, 1):
        if number in failed_rows:
            continue
        row = json.loads(line)
        found = [p for p in patients.iterate(family_name=row["family_name"])
                 if p.get("external_id") == row.get("external_id")]
        state = f"patient {found[0]['id']}" if found else "not in the clinic"
        print(f"  row {number} {row['given_name']} {row['family_name']}: {state}")
    return job


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://localhost:6543")
    parser.add_argument("--key", required=True, help="a clinic-owned key (ehr_live_...)")
    parser.add_argument("--file", type=Path, default=SAMPLE, help="an NDJSON file, one patient per line")
    parser.add_argument("--no-run-valid-rows", action="store_true",
                        help="only validate: show the row errors and write nothing")
    args = parser.parse_args(argv)
    try:
        with Client(args.base_url, args.key) as api:
            run(api, args.file.read_text(encoding="utf-8"), run_valid_rows=not args.no_run_valid_rows)
    except ApiError as error:
        print(f"failed: {error.code} {error.detail} (request {error.request_id})", file=sys.stderr)
        return 1
    except httpx.TransportError as error:
        print(f"failed: cannot reach {args.base_url} ({error or type(error).__name__}); is the service running?",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
