"""`python -m bench.imports [--runs N] [--rows N]`: a 100-row patient import end to end, as rows per second.

End to end means: the POST through the whole WSGI stack (key, reach, permission, body limit, validation of
every row as a real create, the job's commit), the Huey task writing row by row (one committed transaction
per row, immediate mode), and the answer with the finished job. It runs on the embedded PostgreSQL under
./var, in a database of its own (clinicrecords_bench), and a fresh clinic per run.
"""

import argparse
import statistics
import time
from pathlib import Path

import webtest
from pyramid.paster import get_appsettings

from bench.harness import request_in_transaction

ROOT = Path(__file__).resolve().parents[1]


def _clinic_and_key(registry):
    from clinicrecords.access.services import create_key
    from clinicrecords.clinics.services import create_clinic

    with request_in_transaction(registry) as request:
        clinic = create_clinic(request.db, "Bench Clinic")
        _, key = create_key(request.db, registry.settings["secrets.key_pepper"], clinic_id=clinic.id)
        return clinic.id, key


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.imports", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", type=int, default=100)
    args = parser.parse_args(argv)

    from clinicrecords import make_config
    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import migrations

    settings = dict(get_appsettings(str(ROOT / "testing.ini"), "main"), **{"database.name": "clinicrecords_bench"})
    app = make_config(settings).make_wsgi_app()
    migrations.migrate_all(app.registry["db.engine"], CLINIC_SCHEMAS, workers=1)
    client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    rates = []
    for run in range(args.runs):
        clinic_id, key = _clinic_and_key(app.registry)
        rows = [{"given_name": f"Given{n}", "family_name": f"Bench{run}x{n}", "birth_date": "1980-01-01",
                 "sex": "female", "email": f"bench{n}@example.org",
                 "address": {"line": [f"{n} Bench Road"], "city": "Springfield", "country": "US"}}
                for n in range(args.rows)]
        started = time.perf_counter()
        response = client.post_json(f"/v1/clinics/{clinic_id}/patient-imports",
                                    {"input_format": "json_array", "data": rows},
                                    headers={"Authorization": f"Bearer {key}"})
        elapsed = time.perf_counter() - started
        job = response.json["data"]
        assert job["status"] == "succeeded" and job["counts"]["created"] == args.rows, job
        rates.append(args.rows / elapsed)
        print(f"run {run + 1}: {args.rows} rows in {elapsed:.3f} s = {rates[-1]:.1f} rows/s", flush=True)
    print(f"median: {statistics.median(rates):.1f} rows/s over {args.runs} runs of {args.rows} rows")
    app.registry["db.engine"].dispose()


if __name__ == "__main__":
    main()
