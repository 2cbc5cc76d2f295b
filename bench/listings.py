"""Benchmark of the network stock search: `python -m bench.listings [--pharmacies N --items M]`.

Seeds the search's projection directly in bulk (COPY into control.listing_clinics / listing_items /
listing_terms, one workspace every pharmacy lists itself to: the widest audience), in a database of its
own on the embedded PostgreSQL. Seeding 5,000 clinic schemas is not needed to measure the search: the
search never reads a clinic schema, only the projection (the incremental upkeep is tested in
tests/listings). Then it times, through the application's own SQL (clinicrecords.listings.search):

- text: a misspelt medicine name, no location;
- code: a GTIN;
- text+geo: a misspelt name within 10 km of a random point;
- pk: a primary-key lookup of one listing row (the baseline for the ratio).

and prints p50 / p99 in milliseconds and the ratio of each median to the primary-key median. `--explain`
prints EXPLAIN (ANALYZE, BUFFERS) of one query of each kind (docs/listings.md keeps a copy).
Default size: 5,000 pharmacies x 200 items = 1,000,000 listings.
"""

import argparse
import datetime
import json
import random
import statistics
import time
import uuid
from pathlib import Path

from sqlalchemy import text

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "clinicrecords_bench"

GENERICS = [
    "amoxicillin", "paracetamol", "ibuprofen", "salbutamol", "omeprazole", "atorvastatin", "simvastatin",
    "metformin", "amlodipine", "lisinopril", "ramipril", "bisoprolol", "levothyroxine", "sertraline",
    "citalopram", "fluoxetine", "mirtazapine", "naproxen", "diclofenac", "codeine", "tramadol", "gabapentin",
    "pregabalin", "prednisolone", "cetirizine", "loratadine", "clarithromycin", "doxycycline",
    "flucloxacillin", "ciprofloxacin", "trimethoprim", "nitrofurantoin", "lansoprazole", "ranitidine",
    "furosemide", "bendroflumethiazide", "warfarin", "apixaban", "rivaroxaban", "clopidogrel", "aspirin",
    "losartan", "candesartan", "doxazosin", "tamsulosin", "finasteride", "montelukast", "beclometasone",
    "fluticasone", "budesonide", "insulin glargine", "gliclazide", "sitagliptin", "propranolol",
    "amitriptyline", "zopiclone", "diazepam", "lorazepam", "quetiapine", "olanzapine", "risperidone",
    "venlafaxine", "duloxetine", "hydrocortisone", "betamethasone", "clotrimazole", "miconazole",
    "aciclovir", "metronidazole", "erythromycin", "azithromycin", "cefalexin", "phenoxymethylpenicillin",
    "folic acid", "ferrous sulfate", "colecalciferol", "alendronic acid", "allopurinol", "colchicine",
    "methotrexate", "hydroxychloroquine", "sumatriptan", "ondansetron", "metoclopramide", "loperamide",
    "lactulose", "senna", "macrogol", "mebeverine", "hyoscine", "chlorphenamine", "promethazine",
    "fexofenadine", "nystatin", "permethrin", "isotretinoin", "tretinoin", "adapalene", "minocycline",
]
BRANDS = ["Amoxil", "Panadol", "Nurofen", "Ventolin", "Losec", "Lipitor", "Zocor", "Glucophage", "Istin",
          "Zestril", "Tritace", "Cardicor", "Eltroxin", "Lustral", "Cipramil", "Prozac", "Zispin", "Naprosyn"]
STRENGTHS = ["5 mg", "10 mg", "20 mg", "25 mg", "50 mg", "100 mg", "200 mg", "250 mg", "400 mg", "500 mg"]
FORMS = ["tablets", "capsules", "oral suspension", "cream", "inhaler"]
# The region the pharmacies are spread over (about 550 km by 420 km).
LAT_RANGE, LNG_RANGE = (50.5, 55.5), (-4.0, 2.0)


def gtin_for(number):
    body = f"{number:013d}"
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return body + str((10 - total % 10) % 10)


def catalog(rng, size=2000):
    products = []
    for number in range(size):
        generic = GENERICS[number % len(GENERICS)]
        name = f"{generic.capitalize()} {rng.choice(STRENGTHS)} {rng.choice(FORMS)}"
        brand = BRANDS[number % len(BRANDS)] if number % 3 == 0 else None
        terms = sorted({n.lower() for n in (name, generic, brand) if n})
        products.append({"name": name, "generic": generic, "brand": brand, "terms": terms,
                         "gtin": gtin_for(5000000000000 + number * 7),
                         "regulator": f"PL {number:05d}/{number % 97:04d}"})
    return products


def misspell(rng, word):
    """One typo: a dropped, doubled or swapped letter."""
    if len(word) < 5:
        return word
    i = rng.randrange(1, len(word) - 2)
    return rng.choice([word[:i] + word[i + 1:], word[:i] + word[i] + word[i:],
                       word[:i] + word[i + 1] + word[i] + word[i + 2:]])


def make_app(database=DATABASE, fresh=False):
    """The application on a database of its own (dropped first when `fresh`, on the embedded server)."""
    import os

    from pyramid.paster import get_appsettings

    from clinicrecords import make_config
    from clinicrecords.db import embedded
    from clinicrecords.settings import read, var_dir

    settings = dict(get_appsettings(str(ROOT / "development.ini"), "main"))
    settings.update({"database.name": database, "huey.backend": "memory", "huey.consumer_in_process": "false",
                     "database.statement_timeout_ms": "0"})  # the bulk load runs for minutes
    if fresh and not os.environ.get("DATABASE_URL"):
        embedded.drop_database(var_dir(read(settings)), database)
    return make_config(settings).make_wsgi_app()


def seed(engine, pharmacies, items, rng):
    from clinicrecords.db import migrations

    products = catalog(rng)
    workspace_id = uuid.uuid4()
    now = datetime.datetime.now(datetime.UTC)
    head = migrations.head("tenant")
    started = time.perf_counter()
    with engine.begin() as connection:
        connection.execute(text("TRUNCATE control.listing_items, control.listing_terms, control.listing_grants, "
                                "control.listing_clinics, control.workspaces, control.clinics CASCADE"))
        raw = connection.connection.driver_connection
        clinics = []
        with raw.cursor() as cursor:
            with cursor.copy("COPY control.clinics (id, name, kind, currency, lat, lng, schema_revision) "
                             "FROM STDIN") as copy:
                for n in range(pharmacies):
                    clinic_id = uuid.uuid4()
                    lat, lng = rng.uniform(*LAT_RANGE), rng.uniform(*LNG_RANGE)
                    clinics.append((clinic_id, f"Pharmacy {n:05d}", lat, lng))
                    copy.write_row((clinic_id, f"Pharmacy {n:05d}", "pharmacy", "GBP", round(lat, 4),
                                    round(lng, 4), head))
            cursor.execute("INSERT INTO control.workspaces (id, name, verified, plan) "
                           "VALUES (%s, 'Bench workspace', true, 'paid')", (workspace_id,))
            cursor.execute("INSERT INTO control.terms_acceptances (id, workspace_id, version, accepted_by_name) "
                           "VALUES (gen_random_uuid(), %s, '2026-01', 'operator')", (workspace_id,))
            with cursor.copy("COPY control.listing_clinics (clinic_id, display_name, lat, lng, till_reported_at) "
                             "FROM STDIN") as copy:
                for clinic_id, name, lat, lng in clinics:
                    copy.write_row((clinic_id, name, lat, lng, now))
            with cursor.copy("COPY control.listing_grants (clinic_id, workspace_id) FROM STDIN") as copy:
                for clinic_id, *_ in clinics:
                    copy.write_row((clinic_id, workspace_id))
            with cursor.copy("COPY control.listing_terms (term) FROM STDIN") as copy:
                for term in sorted({t for p in products for t in p["terms"]}):
                    copy.write_row((term,))
            with cursor.copy("COPY control.listing_items (clinic_id, item_id, name, generic_name, brand_name, "
                             "terms, gtin, regulator_numbers, band, stock_changed_at, lat, lng) FROM STDIN") as copy:
                for clinic_id, _, lat, lng in clinics:
                    for product in rng.sample(products, items):
                        copy.write_row((clinic_id, uuid.uuid4(), product["name"], product["generic"],
                                        product["brand"], product["terms"], product["gtin"], [product["regulator"]],
                                        rng.choice(("in_stock", "in_stock", "low", "out")), now, lat, lng))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        for table in ("clinics", "listing_clinics", "listing_grants", "listing_terms", "listing_items"):
            connection.execute(text(f"VACUUM ANALYZE control.{table}"))
    return workspace_id, products, time.perf_counter() - started


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def run(engine, workspace_id, products, rng, repeats, explain):
    from clinicrecords.inventory.bands import DEFAULT_MAX_AGE_MINUTES
    from clinicrecords.listings.search import Audience, Near, SearchQuery, build

    audience = Audience(workspace_id=workspace_id)
    age = datetime.timedelta(minutes=DEFAULT_MAX_AGE_MINUTES)

    def text_query():
        return SearchQuery(q=misspell(rng, rng.choice(GENERICS)), limit=20)

    def code_query():
        return SearchQuery(gtin=rng.choice(products)["gtin"], limit=20)

    def geo_query():
        near = Near(rng.uniform(*LAT_RANGE), rng.uniform(*LNG_RANGE), 10.0)
        return SearchQuery(q=misspell(rng, rng.choice(GENERICS)), near=near, limit=20)

    with engine.connect() as connection:
        keys = connection.execute(text("SELECT clinic_id, item_id FROM control.listing_items "
                                       "TABLESAMPLE SYSTEM (1) LIMIT 1000")).all() or connection.execute(
            text("SELECT clinic_id, item_id FROM control.listing_items LIMIT 1000")).all()
        pk_sql = text("SELECT clinic_id, item_id, band FROM control.listing_items "
                      "WHERE clinic_id = :clinic_id AND item_id = :item_id")
        timings, plans, sizes = {}, {}, {}
        kinds = {"text": text_query, "code": code_query, "text+geo": geo_query, "pk": None}
        for kind, make in kinds.items():
            samples, found, explained = [], [], None
            for n in range(repeats + 20):
                if make is None:
                    clinic_id, item_id = rng.choice(keys)
                    sql, params = pk_sql, {"clinic_id": clinic_id, "item_id": item_id}
                else:
                    statement, params = build(make(), audience, datetime.datetime.now(datetime.UTC), age)
                    sql = text(statement)
                started = time.perf_counter()
                rows = connection.execute(sql, params).all()
                elapsed = (time.perf_counter() - started) * 1000
                if n >= 20:  # the first ones warm the cache
                    samples.append(elapsed)
                    found.append(len(rows))
                    if rows and explained is None:
                        explained = (sql, params)
            timings[kind] = samples
            sizes[kind] = statistics.mean(found)
            if explain:
                sql, params = explained or (sql, params)  # a query that found something
                plans[kind] = "\n".join(row[0] for row in connection.execute(
                    text("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + str(sql)), params))
    pk_median = statistics.median(timings["pk"])
    report = {}
    for kind, samples in timings.items():
        report[kind] = {"p50_ms": round(statistics.median(samples), 3), "p99_ms": round(percentile(samples, 0.99), 3),
                        "median_vs_pk": round(statistics.median(samples) / pk_median, 1),
                        "mean_results": round(sizes[kind], 1)}
    return report, plans


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.listings", description=__doc__.splitlines()[0])
    parser.add_argument("--pharmacies", type=int, default=5000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=300, help="timed queries per kind")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--explain", action="store_true", help="print one query plan of each kind")
    parser.add_argument("--database", default=DATABASE, help="database name (dropped and recreated)")
    args = parser.parse_args(argv)
    if not 1 <= args.items <= 2000:
        parser.error("--items is 1 to 2000 (the catalog's size)")

    from clinicrecords.db import migrations

    rng = random.Random(args.seed)
    app = make_app(args.database, fresh=True)
    engine = app.registry["db.engine"]
    try:
        migrations.migrate_control(engine)
        workspace_id, products, seconds = seed(engine, args.pharmacies, args.items, rng)
        report, plans = run(engine, workspace_id, products, rng, args.repeats, args.explain)
    finally:
        engine.dispose()
    result = {"pharmacies": args.pharmacies, "items_per_pharmacy": args.items,
              "listings": args.pharmacies * args.items, "seed_seconds": round(seconds, 1), "searches": report}
    print(json.dumps(result, indent=2))
    for kind, plan in plans.items():
        print(f"\n-- {kind}\n{plan}")
    return result


if __name__ == "__main__":
    main()
