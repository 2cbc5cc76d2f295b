"""`python -m bench.design_floor [--rounds 3] [--seconds 10] [--smoke]`: GET one allergy and POST of an allergy
on the reference, on the least the service's design and the spec allow for them (the design's floor), and on
the service, over HTTP, in alternating rounds.

The reference (bench/server.py, what `python -m bench` compares with) is a bare Pyramid view: BEGIN; SELECT;
COMMIT. The service must also reach a record by traversal and let a security policy allow it (the fixed design),
count the key's request (the spec's rate limit and monthly usage) and write an audit row for it (the spec's audit
trail); a send must also claim its Idempotency-Key, check the patient, write the submission and store its answer.
`design_app` does exactly that and nothing else, with the service's own pieces: its pyramid_tm session
(`db.request_transaction`), the rate-limit store's count sent prepared with the BEGIN (`PostgresStore.hit`, through
`db.tenancy.begin_with`), the service's prebuilt claim, patient check and submission INSERT, the stored answer and
the audit INSERT sent with the COMMIT. The key is found in a dict (a warm key cache); no request id, body
validation, canonical hashes, representation, security headers, limits or request log table. `design_reads` is GET
one without the writes. `design_pipelined` is GET one with the same writes on a protocol of fewer messages: the
count (refusing in SQL), the BEGIN of the clinic's transaction, its setting and the read in one simple-protocol
message, then the audit row with the COMMIT, two round trips where `design` and the reference take three. So
what lies between the service and the reference splits in three: what the design costs
(design_reads / reference), what the spec's writes add (design / design_reads), and what the service does beyond
them (app / design).

Each server is a fresh waitress process (8 threads), loaded like `python -m bench` loads it (16 connections
for GET one, 32 for POST, where the reference answers its GET one); the order turns each round. Prints one JSON
object: medians, and ratios to the reference.
"""

import argparse
import collections
import datetime
import hashlib
import json
import os
import uuid

from psycopg.types.json import Jsonb
from pyramid.authorization import ACLHelper, Allow, Authenticated
from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPTooManyRequests
from pyramid.response import Response

from bench.harness import Server, bench_settings, bench_var, measure, plain, ratios_to, seed, summarise


def design_app(settings, key, writes=True, pipelined=False, per_minute=10 ** 9):
    """GET one and POST through the fixed design; with `writes`, the writes the spec asks of each: the count and
    the audit row, and for POST the Idempotency-Key's claim and stored answer and the submission.

    `pipelined` (GET one; a POST is sent as the design sends it): the count, the BEGIN of the clinic's
    transaction, its setting and the read sent in one message (`read_admitted`), the count refusing in SQL, so
    that a refused request never runs the read."""
    from sqlalchemy import event, text
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.orm import sessionmaker

    from clinicrecords.access.ratelimit_stores import PostgresStore
    from clinicrecords.api.idempotency import _CLAIM, _UPSERT_TEXT
    from clinicrecords.audit.services import entry_with_commit
    from clinicrecords.clinical.models import Allergy
    from clinicrecords.clinical.items import _get
    from clinicrecords.db import make_engine, request_transaction
    from clinicrecords.db.tenancy import _first_row, _send, _statement_before, bind_to_clinic, schema_name
    from clinicrecords.patients.services import is_visible_patient
    from clinicrecords.review.auto_accept import asked
    from clinicrecords.review.services import _INSERT_SUBMISSION
    from clinicrecords.settings import read

    engine = make_engine(read(settings))
    if pipelined:
        event.listen(engine, "connect", _define_admitted)  # before the engine's first connection
    sessions = sessionmaker(bind=engine, class_=request_transaction.RequestSession, expire_on_commit=False)
    store = PostgresStore(engine)  # the service's count, sent with the request's BEGIN as the service sends it
    with engine.connect() as connection:  # the seeded key: its id and workspace, as the key cache holds them
        found = connection.execute(text("SELECT id, workspace_id FROM control.api_keys "
                                        "WHERE strpos(:token, key_id) > 0"), {"token": key}).one()
    keys = {key: Key(found.id, found.workspace_id)}
    read_allergy = _get(Allergy)
    admitted_count = _admitted(store._sql)

    def count_of(identity):
        """The store's count of this request, as its parameters (`PostgresStore.hit`'s)."""
        minute = datetime.datetime.now(datetime.UTC).replace(second=0, microsecond=0)
        return {"api_key_id": identity.id, "window_start": minute, "limit": per_minute,
                "workspace_id": identity.workspace_id, "month": minute.date(), "mode": "live",
                "expected_version": None}

    def read_admitted(request, clinic_id, item_id):
        """The allergy's row, read in the message that carries the request's count, committed on its own, and
        the BEGIN of its transaction pointed at the clinic: one round trip, one simple-protocol message as
        `db.tenancy.begin_with` sends, the count and the read each prepared once per connection."""
        connection = request.db.connection()  # the session is bound to no clinic: nothing is sent
        driver = connection.connection.driver_connection
        prepared = connection.connection.info.setdefault("design_floor.prepared", set())
        params = {**request.admission, **read_allergy.defaults, "item_id": item_id}
        parts = [*_statement_before(driver, admitted_count, params, "design_count", "design_count" not in prepared),
                 "COMMIT", "BEGIN", f'SET LOCAL search_path TO "{schema_name(clinic_id)}"',
                 *_statement_before(driver, read_allergy.text, params, "design_read", "design_read" not in prepared)]
        # The count's own transaction, begun after the PREPAREs, which belong to no transaction.
        parts.insert(0 if "design_count" in prepared else 1, "BEGIN")
        try:
            results = _send(connection, driver, parts)
        except DBAPIError as exc:
            if getattr(exc.orig, "sqlstate", None) == "CR429":
                prepared.add("design_count")  # refused by the count itself: past its PREPARE
                raise HTTPTooManyRequests() from exc
            raise
        prepared.update(("design_count", "design_read"))
        if not results[-1].ntuples:
            return None
        return read_allergy.row._make(_first_row(driver, results[-1]))

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
        __acl__ = [(Allow, Authenticated, "write")]

        def __getitem__(self, name):
            item = Item(self, name, self.request)
            if pipelined and self.request.method == "GET":
                item.row = read_admitted(self.request, self.__parent__.clinic_id, uuid.UUID(name))
            else:
                item.row = read_allergy.first(self.request.db, item_id=uuid.UUID(name))  # the service's own read
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
            if pipelined and request.method == "GET":
                request.admission = count_of(request.identity)  # sent with the read
            else:
                bind_to_clinic(request.db, clinic_id)
                if writes:
                    store.hit(**count_of(request.identity), session=request.db)
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
            return None if request.identity is None else str(request.identity.id)

        def permits(self, request, context, permission):
            principals = [Authenticated] if request.identity is not None else []
            return ACLHelper().permits(context, principals, permission)

        def remember(self, request, userid, **kw):
            return []

        def forget(self, request, **kw):
            return []

    def audited(request, clinic, route, status, record_ids):
        request_transaction.send_with_commit(request.db, *entry_with_commit({
            "id": uuid.uuid4(), "request_id": "design-floor", "key_id": request.identity.id,
            "owner_kind": "workspace", "owner_id": request.identity.workspace_id, "method": request.method,
            "route": route, "status": status, "record_ids": [str(clinic.clinic_id), *record_ids]}))

    def get_one(context, request):
        body = json.dumps({"data": {name: plain(value) for name, value in context.row._asdict().items()}})
        if writes:
            audited(request, context.__parent__.__parent__, "/v1/clinics/{clinic}/allergies/{id}", 200,
                    [context.__name__])
        return Response(body, content_type="application/json", charset="utf-8")

    def send_one(context, request):
        identity, data = request.identity, json.loads(request.body)
        key = request.headers["Idempotency-Key"]
        digest = hashlib.sha256(request.method.encode() + request.path.encode() + request.body).digest()
        claim = _CLAIM.first(request.db, owner_id=identity.workspace_id, key=key) if writes else None
        if claim is not None and not claim.claimed:
            return Response(status=409)
        if claim is not None and claim.status is not None:  # the stored answer, replayed
            return Response(claim.body, status=claim.status, content_type="application/json", charset=None)
        if not is_visible_patient(request.db, uuid.UUID(data["patient_id"])):
            return Response(status=422)
        values = dict(
            id=uuid.uuid4(), patient_id=uuid.UUID(data["patient_id"]), resource_type="allergy", action="create",
            review_status="pending", target_id=uuid.uuid4(), accepted_automatically=False, source="api",
            decided_at=None, decision_reason=None, decided_by_staff_id=None, result_record_id=None,
            client_reference=None, origin_assistant_name=None, payload=data, content_hash=digest.hex(),
            api_key_id=identity.id, workspace_id=identity.workspace_id, sender_owner_id=identity.workspace_id)
        if writes:
            written = _INSERT_SUBMISSION.first(request.db, **values, **asked(identity, "allergy"))
            values["submitted_at"] = written.submitted_at
        body = json.dumps({"data": {"submission_id": str(values["id"]), "review_status": "pending",
                                    "submitted_at": plain(values.get("submitted_at"))}})
        response = Response(body, status=202, content_type="application/json", charset="utf-8")
        if writes:
            request_transaction.send_with_commit(request.db, _UPSERT_TEXT, {
                "owner_id": identity.workspace_id, "key": key, "fingerprint": digest, "status": 202,
                "headers": Jsonb({}), "body": response.body, "clinic_id": context.__parent__.clinic_id})
            audited(request, context.__parent__, "/v1/clinics/{clinic}/allergies", 202,
                    [str(values["patient_id"]), str(values["id"])])
        return response

    def db(request):
        session = request_transaction.for_request(sessions, request.tm)
        request.add_finished_callback(lambda request: session.close())
        return session

    config = Configurator(root_factory=Root, settings={"tm.manager_hook": "pyramid_tm.explicit_manager"})
    config.include("pyramid_tm")
    config.set_security_policy(Policy())
    config.add_request_method(db, "db", reify=True)
    config.include("clinicrecords.request_class")  # as the service: request methods on one class, not per request
    config.add_view(get_one, context=Item, permission="read", request_method="GET")
    config.add_view(send_one, context=Allergies, permission="write", request_method="POST")
    config.registry["db.engine"] = engine
    return config.make_wsgi_app()


Key = collections.namedtuple("Key", "id workspace_id")

# The pipelined count refuses in SQL: an error stops the rest of the message, so the read after it never runs.
# A function of the session's own (pg_temp), defined on each of the design's connections: the floor adds nothing
# to the schema. SQLSTATEs of a class of their own: a reach version that moved (the key is read again) and a
# minute's count over the key's limit (429).
_ADMITTED = """
CREATE FUNCTION pg_temp.admitted(counted integer, per_minute integer) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    IF counted IS NULL THEN
        RAISE EXCEPTION 'the reach version moved' USING ERRCODE = 'CRSTL';
    END IF;
    IF counted > per_minute THEN
        RAISE EXCEPTION 'over the rate limit' USING ERRCODE = 'CR429';
    END IF;
    RETURN counted;
END $$"""


def _define_admitted(driver, record):
    driver.execute(_ADMITTED)
    driver.commit()


def _admitted(count_sql):
    """The service's count, its answer handed to `pg_temp.admitted`: refused in SQL, not by the gate."""
    counted = "SELECT count, window_start FROM minute"
    if counted not in count_sql:
        raise RuntimeError("the rate-limit count's statement no longer ends as the pipelined design expects")
    return count_sql.replace(counted, "SELECT pg_temp.admitted((SELECT count FROM minute), "
                                      "(SELECT per_minute FROM given))")


def scenarios(seeded, servers):
    """{scenario: {server kind: load spec}}: GET one on every server; POST on those that write (the reference's
    GET one at the same 32 connections, as `python -m bench` compares POST)."""
    clinic, allergy = seeded["clinic_id"], seeded["allergy_id"]
    auth = {"Authorization": f"Bearer {seeded['key']}"}
    item, collection = f"/v1/clinics/{clinic}/allergies/{allergy}", f"/v1/clinics/{clinic}/allergies"
    body = json.dumps({"patient_id": seeded["patient_id"], "substance": {"text": "Design {{n}}"},
                       "clinical_status": "active", "criticality": "low"})
    reference = servers["reference"].url(f"/ref/{clinic}/allergies/{allergy}")
    get_one = {kind: {"url": server.url(item), "headers": auth, "connections": 16}
               for kind, server in servers.items() if kind != "reference"}
    post = {kind: {"url": servers[kind].url(collection), "method": "POST", "body": body, "unique": True,
                   "headers": {**auth, "Content-Type": "application/json"}, "connections": 32}
            for kind in ("design", "app")}
    return {"get_one_allergy": {"reference": {"url": reference, "connections": 16}, **get_one},
            "post_allergy_32c": {"reference": {"url": reference, "connections": 32}, **post}}


def run(servers, specs, rounds, seconds, warmup, targets):
    """Medians and ratios to the reference of one scenario's servers, run in turn, the order turned each round."""
    runs = {kind: [] for kind in specs}
    for kind, spec in specs.items():
        measure(servers[kind], spec, warmup)
    for n in range(rounds):
        for kind in list(specs) if n % 2 == 0 else list(reversed(specs)):
            runs[kind].append(measure(servers[kind], specs[kind], seconds))
    medians = {kind: summarise(kind_runs) for kind, kind_runs in runs.items()}
    ratios = {kind: ratios_to(row, medians["reference"]) for kind, row in medians.items()}
    return {"medians": medians, "ratios_to_reference": ratios,
            "service_to_design": against_design(runs, medians, targets)}


# The service against the design's floor in the same run (docs/performance.md, "The design's floor"): GET one's
# rate, CPU per request and p99, POST's rate.
TARGETS_AGAINST_DESIGN = {"get_one_allergy": {"rps": 0.85, "cpu": 1.2, "p99": 1.5}, "post_allergy_32c": {"rps": 0.65}}


def against_design(runs, medians, targets):
    """The service's ratios to the design's floor: over the medians, round by round (the round's two runs), their
    spread, and each target met or not."""
    per_round = [ratios_to(summarise([app]), summarise([design])) for app, design in zip(runs["app"], runs["design"])]
    median = ratios_to(medians["app"], medians["design"])
    return {"median": median, "rounds": per_round,
            "spread": {field: [min(r[field] for r in per_round), max(r[field] for r in per_round)] for field in median},
            "targets": targets,
            "met": {field: median[field] >= bound if field == "rps" else median[field] <= bound
                    for field, bound in targets.items()}}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.design_floor", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one run per server (default 3)")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--smoke", action="store_true", help="one round of 1 s: fails on errors only")
    args = parser.parse_args(argv)
    rounds, seconds, warmup = (1, 1, 1) if args.smoke else (args.rounds, args.seconds, 3)
    var = bench_var()
    settings = bench_settings()
    seeded = seed(settings, 100)
    settings["clinicrecords.var"] = str(var)
    os.environ["DESIGN_FLOOR_KEY"] = seeded["key"]  # the design servers' one key (bench.server reads it)
    servers = {kind: Server(kind, settings, var)
               for kind in ("reference", "design_reads", "design", "design_pipelined", "app")}
    try:
        report = {name: run(servers, specs, rounds, seconds, warmup, TARGETS_AGAINST_DESIGN[name])
                  for name, specs in scenarios(seeded, servers).items()}
    finally:
        for server in servers.values():
            server.stop()
    print(json.dumps({"rounds": rounds, "seconds": seconds, "scenarios": report, "load_average": os.getloadavg()},
                     indent=2))
    errors = sum(row["errors"] for scenario in report.values() for row in scenario["medians"].values())
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
