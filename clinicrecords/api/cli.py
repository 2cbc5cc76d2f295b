"""The platform's operator command `routes`: every route the application answers (docs/operator-cli.md)."""

from clinicrecords.api.route_table import route_table
from clinicrecords.cli import not_transactional


def register(commands):
    routes = commands.add_parser("routes", help="every route: method, path, resource, view, permission, service")
    routes.set_defaults(handler=list_routes)


@not_transactional
def list_routes(request, args):
    return {"routes": [route.row() for route in route_table(request.registry)]}
