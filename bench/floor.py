"""`python -m bench.floor [--rounds 3] [--seconds 10] [--smoke]`: GET one allergy on the reference, on the
least the service's design must do for it, and on the service, over HTTP, in alternating rounds.

The reference (bench/server.py) is a bare Pyramid view: BEGIN; SELECT; COMMIT. The service's GET one must also
be reached by traversal and allowed by a security policy (the fixed design), count the key's request (the
spec's rate limit and usage) and write an audit row for the read (the spec's audit trail). `floor_app` does
exactly that and nothing else, with the service's own pieces where they exist: its pyramid_tm session
(`db.request_transaction`), the count's statement sent prepared with the BEGIN (`db.tenancy.begin_with`), the
audit INSERT sent with the COMMIT. The key is found in a dict (a warm key cache); no request id, validation,
representation, security headers, limits or request log table. `floor_reads` is the same without the two
writes. So what lies between the service and the reference splits in three: what the design costs
(floor_reads / reference), what the spec's two writes add (floor / floor_reads), and what the service does
beyond them (app / floor).

Each server is a fresh waitress process (8 threads), loaded by the same 16-connection runs as `python -m bench`;
the order turns each round. Prints one JSON object: medians, and ratios to the reference.
"""

import argparse
import datetime
import json
import os
import re
import uuid

from pyramid.authorization import ACLHelper, Allow, Authenticated
from pyramid.config import Configurator
from pyramid.response import Response

from bench.__main__ import Server, bench_settings, bench_var, measure, seed, summarise

def floor_app(settings, key, writes=True):
    """GET one through the fixed design; with `writes`, the count and the audit row the spec asks of it."""
    from sqlalchemy.orm import sessionmaker

    from clinicrecords.access.ratelimit_stores import _HIT
    from clinicrecords.audit.services import entry_with_commit
    from clinicrecords.db import make_engine, request_transaction
    from clinicrecords.db.tenancy import begin_with, bind_to_clinic
    from clinicrecords.settings import read

    engine = make_engine(read(settings))
    sessions = sessionmaker(bind=engine, class_=request_transaction.RequestSession, expire_on_commit=False)
    count = re.sub(r"(?<!:):(\w+)", r"%(\1)s", _HIT.text)  # the service's count, as begin_with takes it
    keys = {key: uuid.uuid4()}

    class Node:
        def __init__(self, parent, name, request):
            self.__parent__, self.__name__, self.request = parent, name, request

        def child(self, kind, name, expected):
            if name != expected:
                raise KeyError(name)
            return kind(self, name, self.request)

    class Item(Node):
        __acl__ = [(Allow, Authenticated, "read")]

    class Allergies(Node):
        def __getitem__(self, name):
            item = Item(self, name, self.request)
            item.row = self.request.db.connection().exec_driver_sql(
                "SELECT * FROM allergies WHERE id = %(id)s", {"id": uuid.UUID(name)}).mappings().first()
            if item.row is None:
                raise KeyError(name)
            return item

    class Clinic(Node):
        def __getitem__(self, name):
            return self.child(Allergies, name, "allergies")

    class Clinics(Node):
        def __getitem__(self, name):
            request, clinic_id = self.request, uuid.UUID(name)
            if request.identity is None:
                raise KeyError(name)
            bind_to_clinic(request.db, clinic_id)
            if not writes:
                return Clinic(self, name, request)
            minute = datetime.datetime.now(datetime.UTC).replace(second=0, microsecond=0)
            begin_with(request.db, count, {
                "api_key_id": request.identity, "window_start": minute, "workspace_id": None,
                "month": minute.date(), "mode": "live", "limit": 10 ** 9, "expected_version": None},
                prepared_as="floor_count")
            clinic = Clinic(self, name, request)
            clinic.clinic_id = clinic_id
            return clinic

    class V1(Node):
        def __getitem__(self, name):
            return self.child(Clinics, name, "clinics")

    class Root(Node):
        def __init__(self, request):
            super().__init__(None, "", request)

        def __getitem__(self, name):
            return self.child(V1, name, "v1")

    class Policy:
        def identity(self, request):
            scheme, _, token = request.headers.get("Authorization", "").partition(" ")
            return keys.get(token) if scheme == "Bearer" else None

        def authenticated_userid(self, request):
            return None if request.identity is None else str(request.identity)

        def permits(self, request, context, permission):
            principals = [Authenticated] if request.identity is not None else []
            return ACLHelper().permits(context, principals, permission)

        def remember(self, request, userid, **kw):
            return []

        def forget(self, request, **kw):
            return []

    def get_one(context, request):
        body = json.dumps({"data": {name: _plain(value) for name, value in context.row.items()}})
        if not writes:
            return Response(body, content_type="application/json", charset="utf-8")
        clinic = context.__parent__.__parent__
        request_transaction.send_with_commit(request.db, *entry_with_commit({
            "id": uuid.uuid4(), "request_id": "floor", "key_id": request.identity, "owner_kind": "clinic",
            "owner_id": clinic.clinic_id, "method": "GET", "route": "/v1/clinics/{clinic}/allergies/{id}",
            "status": 200, "record_ids": [context.__name__]}))
        return Response(body, content_type="application/json", charset="utf-8")

    def db(request):
        session = request_transaction.for_request(sessions, request.tm)
        request.add_finished_callback(lambda request: session.close())
        return session

    config = Configurator(root_factory=Root, settings={"tm.manager_hook": "pyramid_tm.explicit_manager"})
    config.include("pyramid_tm")
    config.set_security_policy(Policy())
    config.add_request_method(db, "db", reify=True)
    config.add_view(get_one, context=Item, permission="read", request_method="GET")
    return config.make_wsgi_app()


def _plain(value):
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value) if isinstance(value, uuid.UUID) else value


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.floor", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one run per server (default 3)")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--smoke", action="store_true", help="one round of 1 s: fails on errors only")
    args = parser.parse_args(argv)
    rounds, seconds, warmup = (1, 1, 1) if args.smoke else (args.rounds, args.seconds, 3)
    var = bench_var()
    settings = bench_settings()
    seeded = seed(settings, 100)
    settings["clinicrecords.var"] = str(var)
    clinic, allergy = seeded["clinic_id"], seeded["allergy_id"]
    auth = {"Authorization": f"Bearer {seeded['key']}"}
    os.environ["FLOOR_KEY"] = seeded["key"]  # the floor server's one key (bench.server reads it)
    servers = {kind: Server(kind, settings, var) for kind in ("reference", "floor_reads", "floor", "app")}
    item = f"/v1/clinics/{clinic}/allergies/{allergy}"
    specs = {kind: {"url": server.url(item), "headers": auth, "connections": 16} for kind, server in servers.items()}
    specs["reference"] = {"url": servers["reference"].url(f"/ref/{clinic}/allergies/{allergy}"), "connections": 16}
    runs = {kind: [] for kind in servers}
    try:
        for kind, server in servers.items():
            measure(server, specs[kind], warmup)
        for n in range(rounds):
            order = list(servers) if n % 2 == 0 else list(reversed(servers))
            for kind in order:
                runs[kind].append(measure(servers[kind], specs[kind], seconds))
    finally:
        for server in servers.values():
            server.stop()
    medians = {kind: summarise(kind_runs) for kind, kind_runs in runs.items()}
    ref = medians["reference"]
    ratios = {kind: {"rps": round(row["rps"] / ref["rps"], 3),
                     "cpu": round(row["cpu_ms_per_request"] / ref["cpu_ms_per_request"], 3),
                     "p99": round(row["p99_ms"] / ref["p99_ms"], 3)} for kind, row in medians.items()}
    print(json.dumps({"scenario": "get_one_allergy", "rounds": rounds, "seconds": seconds, "medians": medians,
                      "ratios_to_reference": ratios, "load_average": os.getloadavg()}, indent=2))
    errors = sum(row["errors"] for row in medians.values())
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
