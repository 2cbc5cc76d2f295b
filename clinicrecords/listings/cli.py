from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.inventory.services import linked_items_with_bands, till_row
from clinicrecords.listings import network, projection


def register(commands):
    listing = commands.add_parser("listing", help="a pharmacy's listing to organizations").add_subparsers(
        dest="action", required=True)
    for action, handler, text in (("publish", listing_publish, "list the pharmacy to a workspace"),
                                  ("unpublish", listing_unpublish, "stop listing the pharmacy to a workspace")):
        parser = listing.add_parser(action, help=text)
        parser.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
        parser.add_argument("--workspace", type=uuid_arg, required=True, metavar="WORKSPACE_ID")
        parser.set_defaults(handler=handler)

    listings = commands.add_parser("listings", help="the network search's projection").add_subparsers(
        dest="action", required=True)
    reindex = listings.add_parser("reindex", help="rebuild the projection from every clinic's schema")
    reindex.set_defaults(handler=listings_reindex)


def listing_publish(request, args):
    network.publish(request.db, args.clinic, args.workspace)
    return {"clinic_id": str(args.clinic), "workspace_id": str(args.workspace), "listed": True}


def listing_unpublish(request, args):
    network.unpublish(request.db, args.clinic, args.workspace)
    return {"clinic_id": str(args.clinic), "workspace_id": str(args.workspace), "listed": False}


def listings_reindex(request, args):
    return projection.rebuild(request.db, till_row, linked_items_with_bands)
