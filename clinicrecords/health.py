"""GET /healthz: 200 when the database answers, 503 otherwise. No key needed; for load balancers."""

import json

from pyramid.response import Response
from pyramid.security import NO_PERMISSION_REQUIRED
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from clinicrecords.api.problems import Problem, problem_response
from clinicrecords.db import ENGINE
from clinicrecords.resources import Root


def healthz(context, request):
    try:
        with request.registry[ENGINE].connect() as connection:
            connection.execute(text("SELECT 1"))
    except DBAPIError:
        return problem_response(request, Problem("service_unavailable", "The database does not answer."))
    return Response(json.dumps({"status": "ok"}).encode(), content_type="application/json", charset=None)


def includeme(config):
    config.add_view(healthz, context=Root, name="healthz", request_method="GET",
                    permission=NO_PERMISSION_REQUIRED)
