"""`python -m bench.profile [--scenario one|list|fhir|post] [--requests N] [--cpu-only]`: pyinstrument profile of
one benchmark scenario through the whole WSGI stack (in-process, on the bench database; `pip install -e .[bench]`
first). Before profiling it measures this process's CPU per request without the profiler (the figure
docs/performance.md quotes as "in-process CPU ms/req"): the service's Python CPU, without waitress or HTTP.
"""

import argparse
import os
import time
import uuid
from pathlib import Path

from bench.__main__ import ROOT, bench_settings, seed


def _requests(seeded, scenario):
    clinic, allergy = seeded["clinic_id"], seeded["allergy_id"]
    auth = {"Authorization": f"Bearer {seeded['key']}"}
    if scenario == "one":
        return lambda client: client.get(f"/v1/clinics/{clinic}/allergies/{allergy}", headers=auth)
    if scenario in ("list", "fhir"):
        headers = {**auth, "Accept": "application/fhir+json"} if scenario == "fhir" else auth
        return lambda client: client.get(f"/v1/clinics/{clinic}/allergies?limit=100", headers=headers)

    def post(client):
        body = {"patient_id": seeded["patient_id"], "substance": {"text": f"Profile {uuid.uuid4().hex[:8]}"},
                "clinical_status": "active", "criticality": "low"}
        client.post_json(f"/v1/clinics/{clinic}/allergies", body, status=202,
                         headers={**auth, "Idempotency-Key": str(uuid.uuid4())})
    return post


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=("one", "list", "fhir", "post"), default="one")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--cpu-only", action="store_true", help="measure CPU per request, do not profile")
    args = parser.parse_args(argv)
    import webtest

    from clinicrecords import make_config

    os.environ.setdefault("CLINICRECORDS_VAR", str(Path(ROOT / "var" / "bench")))
    settings = bench_settings()
    seeded = seed(settings, 100)
    client = webtest.TestApp(make_config(settings).make_wsgi_app(), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    call = _requests(seeded, args.scenario)
    for _ in range(100):
        call(client)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(args.requests):
        call(client)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{args.scenario}: in-process CPU {cpu * 1000 / args.requests:.3f} ms/req, "
          f"wall {wall * 1000 / args.requests:.3f} ms/req over {args.requests} requests")
    if args.cpu_only:
        return
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0005)
    with profiler:
        for _ in range(args.requests):
            call(client)
    print(profiler.output_text(unicode=True, color=False, show_all=False))


if __name__ == "__main__":
    main()
