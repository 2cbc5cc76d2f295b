"""`clinicrecords-worker CONFIG_URI`: the Huey consumer as its own process (production).

In development the same consumer runs inside `pserve` (huey.consumer_in_process = true).
"""

import argparse
import logging

from pyramid.paster import bootstrap, setup_logging

from clinicrecords.db import check_ready_to_serve
from clinicrecords.settings import SettingsError, refuse_to_start
from clinicrecords.tasks import huey


def consumer(workers=2):
    return huey.create_consumer(workers=workers, worker_type="thread", periodic=True, check_worker_health=True)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="clinicrecords-worker", description=__doc__.splitlines()[0])
    parser.add_argument("config_uri")
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)
    setup_logging(args.config_uri)
    logging.getLogger("huey").setLevel(logging.INFO)
    with bootstrap(args.config_uri) as env:
        try:
            check_ready_to_serve(env["registry"])
        except SettingsError as exc:
            refuse_to_start(exc)
        consumer(args.workers).run()
