"""Staff commands for a clinic's inventory and till (what the clinic's own till software does in production)."""

import argparse

from clinicrecords.cli import command_group
from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.clinics.services import open_clinic
from clinicrecords.inventory import services
from clinicrecords.settings import app_settings


def _count_arg(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _clinic(parser):
    parser.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")


def register(commands):
    stock = commands.add_parser("stock", help="an item's stock").add_subparsers(dest="action", required=True)
    set_ = stock.add_parser("set", help="set an item's quantity (bands and events follow)")
    _clinic(set_)
    set_.add_argument("item_id", type=uuid_arg, metavar="ITEM_ID")
    set_.add_argument("--quantity", type=_count_arg, required=True, metavar="N")
    set_.set_defaults(handler=stock_set)

    till = commands.add_parser("till", help="the clinic's till freshness").add_subparsers(dest="action", required=True)
    report = till.add_parser("report", help="the till reported its stock: fresh")
    _clinic(report)
    report.set_defaults(handler=till_report)
    stale = till.add_parser("stale", help="the till stopped reporting: every band reads unknown")
    _clinic(stale)
    stale.set_defaults(handler=till_stale)

    item = command_group(commands, "item", help="inventory items and chart items")
    create = item.add_parser("create", help="create an item (quantity 0)")
    _clinic(create)
    create.add_argument("--name", required=True)
    create.add_argument("--generic-name")
    create.add_argument("--brand-name")
    create.add_argument("--gtin", help="GTIN-8/12/13/14; the check digit is verified")
    create.add_argument("--regulator-number", action="append", default=[], metavar="NUMBER")
    create.add_argument("--low-at", type=_count_arg, default=5, metavar="N", help="low while 1..N (default 5)")
    create.add_argument("--linked", action="store_true", help="list it to the network at once")
    create.set_defaults(handler=item_create)
    for action, linked in (("link", True), ("unlink", False)):
        parser = item.add_parser(action, help=("list the item to the network" if linked else
                                               "take the item off the network"))
        _clinic(parser)
        parser.add_argument("item_id", type=uuid_arg, metavar="ITEM_ID")
        parser.set_defaults(handler=item_link if linked else item_unlink)


def _open(request, clinic_id):
    clinic = open_clinic(request.db, clinic_id)
    if clinic is None:
        raise services.InventoryError(f"no clinic {clinic_id}")
    return clinic


def _projection(request):
    return services.network_projection(request.registry)


def stock_set(request, args):
    return services.set_stock_as_staff(request.db, _projection(request), _open(request, args.clinic), args.item_id,
                                       args.quantity, app_settings(request.registry).inventory)


def till_report(request, args):
    return services.report_till_as_staff(request.db, _projection(request), _open(request, args.clinic),
                                         app_settings(request.registry).inventory)


def till_stale(request, args):
    return services.mark_till_stale_as_staff(request.db, _projection(request), _open(request, args.clinic),
                                             app_settings(request.registry).inventory)


def item_create(request, args):
    clinic = _open(request, args.clinic)
    item = services.create_item(request.db, _projection(request), clinic, name=args.name,
                                generic_name=args.generic_name, brand_name=args.brand_name, gtin=args.gtin,
                                regulator_numbers=args.regulator_number, low_at=args.low_at, linked=args.linked)
    return {"item_id": str(item.id)}


def _link(request, args, linked):
    clinic = _open(request, args.clinic)
    item = services.set_linked(request.db, _projection(request), clinic, args.item_id, linked)
    return {"item_id": str(item.id), "linked": item.linked}


def item_link(request, args):
    return _link(request, args, True)


def item_unlink(request, args):
    return _link(request, args, False)


