"""One server process of the benchmark: `python -m bench.server KIND PORT
SETTINGS_JSON LOG_FILE [reuseport]`, KIND one of app, reference, design, design_reads and design_pipelined.

Each runs on waitress with the same settings (8 threads, no debug), logs one line per request to LOG_FILE and
uses the same engine/pool factory (clinicrecords.db.make_engine). The reference is a bare Pyramid app whose
views check a connection out of the pool and run BEGIN; SELECT by primary key (or N rows); COMMIT.
With `reuseport`, the listening socket is bound with SO_REUSEPORT so several processes share one port and
the kernel spreads connections over them (docs/deployment.md, several web processes on one host).
"""

import socket

import json
import logging
import os
import sys
import uuid

import orjson
import waitress
from pyramid.config import Configurator
from pyramid.response import Response
from sqlalchemy import text

from bench.harness import plain
from clinicrecords.serving import keep_start_up_out_of_collections

WAITRESS = {"threads": 8, "connection_limit": 200, "channel_timeout": 30, "ident": "bench"}


def _rows(result):
    return [{column: plain(value) for column, value in row.items()} for row in result.mappings()]


def reference_app(settings, engine=None):
    from clinicrecords.db import make_engine
    from clinicrecords.db.tenancy import schema_name
    from clinicrecords.settings import read

    engine = engine or make_engine(read(settings))

    def one(request):
        schema = schema_name(uuid.UUID(request.matchdict["clinic"]))
        with engine.begin() as connection:  # BEGIN; SELECT ... WHERE id = ...; COMMIT
            rows = _rows(connection.execute(text(f'SELECT * FROM "{schema}".allergies WHERE id = :id'),
                                            {"id": uuid.UUID(request.matchdict["id"])}))
        return Response(json.dumps({"data": rows[0]}), content_type="application/json", charset="utf-8")

    def page(request):
        schema = schema_name(uuid.UUID(request.matchdict["clinic"]))
        limit = int(request.params.get("limit", 100))
        with engine.begin() as connection:
            rows = _rows(connection.execute(text(f'SELECT * FROM "{schema}".allergies ORDER BY id LIMIT :n'),
                                            {"n": limit}))
        return Response(json.dumps({"data": rows}), content_type="application/json", charset="utf-8")

    config = Configurator()
    config.add_route("one", "/ref/{clinic}/allergies/{id}")
    config.add_route("page", "/ref/{clinic}/allergies")
    config.add_view(one, route_name="one")
    config.add_view(page, route_name="page")
    app = config.make_wsgi_app()
    return _logged(app)


def _logged(app):
    """The same kind of per-request log line as the service's request_log tween."""
    log = logging.getLogger("clinicrecords.request")

    def logged(environ, start_response):
        status = []

        def starting(code, headers, exc_info=None):
            status.append(code)
            return start_response(code, headers, exc_info)

        try:
            return app(environ, starting)
        finally:
            log.info(orjson.dumps({"method": environ["REQUEST_METHOD"], "route": environ["PATH_INFO"],
                                   "status": int(status[0].split()[0]) if status else 500}).decode())

    return logged


def service_app(settings):
    from clinicrecords import make_config

    return make_config(settings).make_wsgi_app()


def main(argv=None):
    argv = argv or sys.argv[1:]
    kind, port, settings_json, log_file = argv[:4]
    handler = logging.FileHandler(log_file)
    handler.setFormatter(logging.Formatter("%(message)s"))
    # Handlers of their own, so waitress's basicConfig() fallback never sends these lines to stderr.
    for name, level in (("clinicrecords", logging.INFO), ("waitress", logging.WARNING)):
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.addHandler(handler)
        logger.propagate = False
    settings = json.loads(settings_json)
    if kind.startswith("design"):
        from bench.design_floor import design_app

        app = _logged(design_app(settings, os.environ["DESIGN_FLOOR_KEY"], writes=kind != "design_reads",
                                 pipelined=kind == "design_pipelined"))
    else:
        app = reference_app(settings) if kind == "reference" else service_app(settings)
    # As the service's server runner does (clinicrecords.serving), for every kind alike: a full pass of the
    # cyclic collector over the start-up's objects would otherwise fall inside one server's run and not another's.
    keep_start_up_out_of_collections()
    print("ready", flush=True)
    if "reuseport" in argv[4:]:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        listener.bind(("127.0.0.1", int(port)))
        waitress.serve(app, sockets=[listener], **WAITRESS)
    else:
        waitress.serve(app, host="127.0.0.1", port=int(port), **WAITRESS)


if __name__ == "__main__":
    main()
