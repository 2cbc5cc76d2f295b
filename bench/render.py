"""`python -m bench.render [--rounds N] [--pages N] [--against CHECKOUT]`: CPU to render the bench's page of
100 allergies (the rows the list route reads), plain and FHIR, down to the bytes sent; no request path, no
database in the timing. `--against` times another checkout's representations (e.g. a `git worktree` of main)
in alternation with this one's, in the same process, so a busy machine slows both alike. Prints one JSON
object on stdout.
"""

import argparse
import importlib.util
import json
import statistics
import sys
import time
import uuid

from bench.harness import bench_settings, request_in_transaction, seed


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shapes(api, clinical, json_bytes):
    """Plain and FHIR pages the way `render_page` builds them, as functions of (request, rows)."""
    def plain(request, rows):
        return json_bytes({"data": [clinical.allergy_json(row, request) for row in rows], "has_more": False,
                           "next_cursor": None})

    def fhir(request, rows):
        return json_bytes(api.searchset_bundle(request, [clinical.allergy_fhir(row, request) for row in rows]))
    return {"plain": plain, "fhir": fhir}


def _cpu_ms_per_page(render, request, rows, pages):
    start = time.process_time()
    for _ in range(pages):
        render(request, rows)
    return (time.process_time() - start) * 1000 / pages


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.render", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (default 7)")
    parser.add_argument("--pages", type=int, default=300, help="pages rendered per round and version")
    parser.add_argument("--against", help="another checkout whose representations to time alongside")
    args = parser.parse_args(argv)
    from sqlalchemy import select

    from clinicrecords import make_config
    from clinicrecords.api import representations as api
    from clinicrecords.api.render import json_bytes
    from clinicrecords.clinical import representations as clinical
    from clinicrecords.clinical.models import Allergy
    from clinicrecords.patients.services import visible
    from clinicrecords.db.tenancy import bind_to_clinic

    settings = bench_settings()
    seeded = seed(settings, 100)
    registry = make_config(settings).make_wsgi_app().registry
    with request_in_transaction(registry) as request:
        bind_to_clinic(request.db, uuid.UUID(seeded["clinic_id"]))
        rows = request.db.execute(visible(select(*Allergy.__table__.columns), Allergy.patient_id)
                                  .order_by(Allergy.created_at).limit(100)).all()
    versions = {"this": _shapes(api, clinical, json_bytes)}
    if args.against:
        versions["against"] = _shapes(_load(f"{args.against}/clinicrecords/api/representations.py", "against_api"),
                                      _load(f"{args.against}/clinicrecords/clinical/representations.py",
                                            "against_clinical"), json_bytes)
        for shape in ("plain", "fhir"):  # the same bytes, or the comparison means nothing
            assert versions["this"][shape](request, rows) == versions["against"][shape](request, rows), shape
    runs = {f"{version}.{shape}": [] for version in versions for shape in ("plain", "fhir")}
    for round_ in range(args.rounds):
        order = list(versions.items()) if round_ % 2 == 0 else list(reversed(versions.items()))
        for version, shapes in order:
            for shape, render in shapes.items():
                runs[f"{version}.{shape}"].append(round(_cpu_ms_per_page(render, request, rows, args.pages), 3))
    medians = {name: statistics.median(values) for name, values in runs.items()}
    result = {"rows": len(rows), "pages_per_round": args.pages, "medians_ms": medians, "runs_ms": runs,
              "fhir_over_plain": {version: round(medians[f"{version}.fhir"] / medians[f"{version}.plain"], 2)
                                  for version in versions}}
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
