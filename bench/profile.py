"""`python -m bench.profile [--requests N]`: pyinstrument profile of GET one allergy through the whole WSGI
stack (in-process, on the bench database; `pip install -e .[bench]` first)."""

import argparse
import os
from pathlib import Path

from bench.__main__ import ROOT, bench_settings, seed


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args(argv)
    import webtest
    from pyinstrument import Profiler

    from clinicrecords import make_config

    os.environ.setdefault("CLINICRECORDS_VAR", str(Path(ROOT / "var" / "bench")))
    settings = bench_settings()
    seeded = seed(settings, 100)
    client = webtest.TestApp(make_config(settings).make_wsgi_app(), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    url = f"/v1/clinics/{seeded['clinic_id']}/allergies/{seeded['allergy_id']}"
    headers = {"Authorization": f"Bearer {seeded['key']}"}
    for _ in range(100):
        client.get(url, headers=headers)
    profiler = Profiler(interval=0.0005)
    with profiler:
        for _ in range(args.requests):
            client.get(url, headers=headers)
    print(profiler.output_text(unicode=True, color=False, show_all=False))


if __name__ == "__main__":
    main()
