"""Does a wrong secret take measurably longer to refuse than an unknown key id? (The spec's bad input and safety.)

    python -m bench.auth_timing [CONFIG_URI] [--rounds N]

Measures `authenticate()` against the real database named by CONFIG_URI (default testing.ini, the embedded
PostgreSQL under ./var) and prints the median time of each case and their ratio. Everything it writes (one
clinic row and one key) is rolled back at the end. Both cases run interleaved so drift hits them alike.
"""

import argparse
import statistics
import time
import uuid

from pyramid.paster import get_appsettings

from clinicrecords import make_config
from clinicrecords.access.identity import authenticate
from clinicrecords.access.keys import parse_key
from clinicrecords.access.services import create_key
from clinicrecords.clinics.models import Clinic
from clinicrecords.clinics.services import CLINIC_SCHEMAS
from clinicrecords.db import migrations


def _measure(db, pepper, header):
    started = time.perf_counter_ns()
    identity = authenticate(db, pepper, header)
    elapsed = time.perf_counter_ns() - started
    assert identity is None
    return elapsed


def run(config_uri, rounds):
    app = make_config(dict(get_appsettings(config_uri, "main"))).make_wsgi_app()
    engine = app.registry["db.engine"]
    pepper = app.registry.settings["secrets.key_pepper"]
    migrations.migrate_all(engine, CLINIC_SCHEMAS)
    session = app.registry["db.session_factory"]()
    try:
        clinic = Clinic(id=uuid.uuid4(), name="Timing bench clinic", kind="clinic", currency="USD")
        session.add(clinic)
        session.flush()
        key = parse_key(create_key(session, pepper, clinic_id=clinic.id)[1])
        cases = {
            "wrong secret": f"Bearer ehr_live_{key.key_id}_{'0' * 48}",
            "unknown key id": f"Bearer ehr_live_{'f' * 16}_{'0' * 48}",
        }
        for header in cases.values():  # warm up caches and prepared plans
            for _ in range(50):
                _measure(session, pepper, header)
        samples = {name: [] for name in cases}
        for _ in range(rounds):
            for name, header in cases.items():
                samples[name].append(_measure(session, pepper, header))
        medians = {name: statistics.median(values) / 1000 for name, values in samples.items()}
        for name, median in medians.items():
            print(f"{name:>15}: median {median:8.1f} µs over {rounds} calls")
        ratio = medians["wrong secret"] / medians["unknown key id"]
        print(f"{'ratio':>15}: {ratio:.3f} (wrong secret / unknown key id)")
    finally:
        session.rollback()
        session.close()
        engine.dispose()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.auth_timing", description=__doc__.splitlines()[0])
    parser.add_argument("config_uri", nargs="?", default="testing.ini")
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args(argv)
    run(args.config_uri, args.rounds)


if __name__ == "__main__":
    main()
