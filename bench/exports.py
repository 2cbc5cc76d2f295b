"""`python -m bench.exports [--patients N] [--items N] [--runs N]`: one clinic's bulk export, written whole.

Seeds, in a database of its own (clinicrecords_bench_exports) on the embedded PostgreSQL under ./var, a clinic
of `--patients` patients (10,000) with `--items` chart items (100,000) spread over every exported kind
(allergies, conditions, reported medicines, prescriptions, encounters, referrals, coverages, outside care
providers) and 50 clinicians, then runs the writer as the worker does (`write_export`: every type, one
REPEATABLE READ snapshot, NDJSON files into a temporary directory) `--runs` times. Reports per run the wall
time, this process's CPU (user + system; PostgreSQL's own is not in it), the lines and bytes written, and the
growth of the process's peak resident memory over the run (ru_maxrss): streamed output keeps it flat, a
clinic ten times larger does not grow it (`--patients 1000 --items 10000` shows the same). The target:
under a minute on 2 cores. Then one export since the last run's transaction time (nothing changed since). A
clinic already seeded at the same size is reused (`--fresh` seeds anew).
"""

import argparse
import datetime
import resource
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from pyramid.paster import get_appsettings
from sqlalchemy import insert, select

from bench.harness import request_in_transaction

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "clinicrecords_bench_exports"
BATCH = 5000
# The share of each kind in the chart items (sums to 1).
SHARES = {"allergy": 0.2, "condition": 0.2, "medication_statement": 0.15, "prescription": 0.15, "encounter": 0.15,
          "referral": 0.05, "coverage": 0.05, "care_provider": 0.05}


def _models():
    from clinicrecords.care_providers.models import CareProvider
    from clinicrecords.clinical.models import Allergy, Condition, MedicationStatement, Referral
    from clinicrecords.encounters.models import Encounter
    from clinicrecords.insurance.models import Coverage, Payer
    from clinicrecords.patients.models import Patient
    from clinicrecords.prescriptions.models import Prescription
    from clinicrecords.providers.models import Provider

    return {"patient": Patient, "allergy": Allergy, "condition": Condition,
            "medication_statement": MedicationStatement, "referral": Referral, "prescription": Prescription,
            "encounter": Encounter, "coverage": Coverage, "payer": Payer, "care_provider": CareProvider,
            "provider": Provider}


def _row(kind, n, patient_id, provider_ids, payer_id):
    day = datetime.date(2020, 1, 1) + datetime.timedelta(days=n % 1500)
    if kind == "allergy":
        return {"patient_id": patient_id, "entry": "recorded", "substance_text": f"Substance {n % 300}",
                "substance_rxnorm": str(7980 + n % 50), "clinical_status": "active", "category": ["medication"],
                "criticality": "low", "type": "allergy", "verification_status": "confirmed",
                "reactions": [{"manifestation": ["urticaria"], "description": "Hives"}], "onset_date": day}
    if kind == "condition":
        return {"patient_id": patient_id, "icd10_code": "E11.9", "display": "Type 2 diabetes mellitus",
                "clinical_status": "active", "verification_status": "confirmed", "onset_date": day,
                "note": "Diet-controlled."}
    if kind == "medication_statement":
        return {"patient_id": patient_id, "medication_text": "Metformin", "medication_rxnorm": "6809",
                "status": "active", "verification_status": "confirmed", "dosage_text": "500 mg twice a day",
                "effective_start": day}
    if kind == "prescription":
        return {"patient_id": patient_id, "drug": "Lisinopril 10 mg tablet", "dose": "1 tablet",
                "frequency": "once daily", "status": "active", "source": "clinic", "written_on": day,
                "start_date": day}
    if kind == "encounter":
        start = datetime.datetime.combine(day, datetime.time(9), tzinfo=datetime.UTC)
        return {"patient_id": patient_id, "provider_id": provider_ids[n % len(provider_ids)], "status": "completed",
                "encounter_class": "ambulatory", "type": "Follow-up", "reason": "Review", "start_at": start,
                "end_at": start + datetime.timedelta(minutes=20), "signed_at": start, "sensitive": n % 50 == 0}
    if kind == "referral":
        return {"patient_id": patient_id, "status": "received", "reason_code": "I10", "reason_text": "Review",
                "specialty": "Cardiology", "priority": "routine", "verification_status": "confirmed",
                "sender_owner_id": uuid.UUID(int=1)}
    if kind == "coverage":
        return {"patient_id": patient_id, "payer_id": payer_id, "member_id": f"M{n:08d}",
                "subscriber_relationship": "self", "confirmation_status": "confirmed", "coverage_active": True}
    if kind == "care_provider":
        return {"patient_id": patient_id, "type": "physician", "name": f"Dr Outside {n}", "source": "clinic",
                "is_primary": False, "phone": "+1 555 0100", "specialty": "Cardiology"}
    raise ValueError(kind)


def seed(registry, patients, items):
    """A clinic of `patients` patients and `items` chart items, inserted in batches; its id."""
    from clinicrecords.clinics.services import create_clinic
    from clinicrecords.db.tenancy import bind_to_clinic

    models = _models()
    with request_in_transaction(registry) as request:
        db = request.db
        clinic = create_clinic(db, f"Bench export {patients}x{items}")
        bind_to_clinic(db, clinic.id)
        provider_ids = [uuid.uuid4() for _ in range(50)]
        db.execute(insert(models["provider"]), [{"id": provider_id, "given_name": f"Given{n}",
                                                  "family_name": f"Clinician{n}", "role": "physician",
                                                  "specialties": ["family medicine"]}
                                                 for n, provider_id in enumerate(provider_ids)])
        payer_id = uuid.uuid4()
        db.execute(insert(models["payer"]).values(id=payer_id, display_name="Bench Mutual",
                                                  search_name="bench mutual", primary_payer_id="BENCH1"))
        patient_ids = [uuid.uuid4() for _ in range(patients)]
        for start in range(0, patients, BATCH):
            db.execute(insert(models["patient"]), [
                {"id": patient_id, "given_name": "Pat", "family_name": f"Bench{start + n}",
                 "birth_date": datetime.date(1950 + (start + n) % 60, 1 + (start + n) % 12, 1), "sex": "female",
                 "phone": "+1 555 0199", "email": f"pat{start + n}@example.org",
                 "address": {"line": [f"{start + n} Bench Road"], "city": "Springfield", "country": "US"},
                 "restricted": (start + n) % 100 == 0}
                for n, patient_id in enumerate(patient_ids[start:start + BATCH])])
        for kind, share in SHARES.items():
            count = round(items * share)
            if kind == "coverage":
                count = min(count, patients)  # one coverage per patient and payer
            for start in range(0, count, BATCH):
                db.execute(insert(models[kind]), [
                    _row(kind, n, patient_ids[n % patients], provider_ids, payer_id)
                    for n in range(start, min(start + BATCH, count))])
        return clinic.id


def _seeded_clinic(registry, patients, items):
    from clinicrecords.clinics.models import Clinic

    with request_in_transaction(registry) as request:
        return request.db.scalar(select(Clinic.id).where(Clinic.name == f"Bench export {patients}x{items}")
                                 .order_by(Clinic.created_at.desc()).limit(1))


def _cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.exports", description=__doc__.splitlines()[0])
    parser.add_argument("--patients", type=int, default=10_000)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--split-mb", type=int, default=64, help="file size at which a type's file is split")
    parser.add_argument("--fresh", action="store_true", help="seed a new clinic even if one of this size exists")
    args = parser.parse_args(argv)

    from clinicrecords import make_config
    from clinicrecords.clinics.services import CLINIC_SCHEMAS
    from clinicrecords.db import migrations
    from clinicrecords.exports.sources import EXPORT_TYPES
    from clinicrecords.exports.writer import write_export

    settings = dict(get_appsettings(str(ROOT / "testing.ini"), "main"), **{"database.name": DATABASE})
    registry = make_config(settings).make_wsgi_app().registry
    migrations.migrate_all(registry["db.engine"], CLINIC_SCHEMAS, workers=1)
    clinic_id = None if args.fresh else _seeded_clinic(registry, args.patients, args.items)
    if clinic_id is None:
        started = time.perf_counter()
        clinic_id = seed(registry, args.patients, args.items)
        print(f"seeded {args.patients} patients and {args.items} chart items in {time.perf_counter() - started:.1f} s",
              flush=True)
    times = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-export-") as directory:
            peak_before, cpu_before = _peak_rss_mb(), _cpu()
            started = time.perf_counter()
            written = write_export(clinic_id, types=tuple(EXPORT_TYPES), since=None, directory=Path(directory),
                                   split_bytes=args.split_mb << 20, base_url="https://bench.example/fhir",
                                   registry=registry, owner_id=uuid.uuid4())
            elapsed = time.perf_counter() - started
            cpu = _cpu() - cpu_before
            lines = sum(f.count for f in written.output)
            size = sum(f.size for f in written.output)
            times.append(elapsed)
            print(f"run {run + 1}: {lines} resources, {size / 2**20:.1f} MiB in {len(written.output)} files, "
                  f"{elapsed:.2f} s wall, {cpu:.2f} s CPU, {lines / elapsed:,.0f} resources/s; peak RSS "
                  f"{_peak_rss_mb():.0f} MiB (+{_peak_rss_mb() - peak_before:.1f} over the run)", flush=True)
            assert not written.error, written.error
    print(f"median: {statistics.median(times):.2f} s for {args.patients} patients and {args.items} chart items "
          f"over {args.runs} runs")
    with tempfile.TemporaryDirectory(prefix="bench-export-") as directory:
        started = time.perf_counter()
        incremental = write_export(clinic_id, types=tuple(EXPORT_TYPES), since=written.transaction_time,
                                   directory=Path(directory), split_bytes=args.split_mb << 20,
                                   base_url="https://bench.example/fhir", registry=registry, owner_id=uuid.uuid4())
        print(f"since the last run's transaction time: {sum(f.count for f in incremental.output)} resources in "
              f"{time.perf_counter() - started:.2f} s (nothing changed: the cost of finding nothing)")
    registry["db.engine"].dispose()


if __name__ == "__main__":
    main()
