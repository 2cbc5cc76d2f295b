"""`webhook add|list|test|replay|rotate-secret|disable|enable|delete|deliveries|reseal-secrets|new-key`:
operators manage webhook endpoints."""

import argparse

from clinicrecords.api.render import iso
from clinicrecords.cli import not_transactional
from clinicrecords.cli.arguments import datetime_arg, positive_int_arg, uuid_arg
from clinicrecords.db import SESSION_FACTORY
from clinicrecords.events import delivery_log, pings, replays, secret_box, webhooks
from clinicrecords.events.settings import webhook_settings


def _types_arg(text):
    try:
        return webhooks.parse_types(text)
    except webhooks.WebhookError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _key_id_arg(text):
    if not secret_box.KEY_ID.fullmatch(text):
        raise argparse.ArgumentTypeError("a key id is 1 to 32 letters, digits, '-' or '_'")
    return text


def _seq_arg(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _hours_arg(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of hours: {text!r}") from None
    if not 0 <= value <= webhooks.MAX_OVERLAP_SECONDS / 3600:
        raise argparse.ArgumentTypeError(f"0 to {webhooks.MAX_OVERLAP_SECONDS // 3600} hours")
    return value


def register(commands):
    webhook = commands.add_parser("webhook", help="webhook endpoints and their deliveries").add_subparsers(
        dest="action", required=True)

    add = webhook.add_parser("add", help="register an endpoint; its signing secret is printed")
    owner = add.add_mutually_exclusive_group(required=True)
    owner.add_argument("--workspace", type=uuid_arg, metavar="WORKSPACE_ID")
    owner.add_argument("--clinic", type=uuid_arg, metavar="CLINIC_ID")
    add.add_argument("--mode", choices=("live", "test"))
    add.add_argument("--url", required=True)
    add.add_argument("--types", type=_types_arg, metavar="t1,t2", help="only these event types")
    add.set_defaults(handler=webhook_add)

    listing = webhook.add_parser("list", help="every endpoint with its status")
    listing.add_argument("--workspace", type=uuid_arg, metavar="WORKSPACE_ID")
    listing.add_argument("--clinic", type=uuid_arg, metavar="CLINIC_ID")
    listing.add_argument("--mode", choices=webhooks.MODES)
    listing.set_defaults(handler=webhook_list)

    test = webhook.add_parser("test", help="send a signed webhook.ping now and report the receiver's answer")
    test.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    test.set_defaults(handler=webhook_test)

    replay = webhook.add_parser("replay", help="deliver kept events again: one event, a clinic's events after a "
                                "seq, one earlier delivery, or every event since a time (recover)")
    replay.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    which = replay.add_mutually_exclusive_group(required=True)
    which.add_argument("--event", type=uuid_arg, metavar="EVENT_ID")
    which.add_argument("--after-seq", type=_seq_arg, metavar="N")
    which.add_argument("--delivery", type=uuid_arg, metavar="DELIVERY_ID")
    which.add_argument("--since", type=datetime_arg, metavar="ISO_TIME")
    replay.add_argument("--clinic", type=uuid_arg, metavar="CLINIC_ID")
    replay.set_defaults(handler=webhook_replay)

    rotate = webhook.add_parser("rotate-secret", help="new signing secret; the old one also signs for the overlap")
    rotate.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    rotate.add_argument("--overlap-hours", type=_hours_arg, metavar="H",
                        help="how long the old secret also signs (default: webhooks.secret_overlap_seconds)")
    rotate.set_defaults(handler=webhook_rotate_secret)

    disable = webhook.add_parser("disable", help="send nothing to the endpoint until enabled")
    disable.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    disable.set_defaults(handler=webhook_disable)

    enable = webhook.add_parser("enable", help="resume sending; pending deliveries are due at once")
    enable.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    enable.set_defaults(handler=webhook_enable)

    remove = webhook.add_parser("delete", help="delete an endpoint and its deliveries")
    remove.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    remove.set_defaults(handler=webhook_delete)

    reseal = webhook.add_parser("reseal-secrets", help="seal every signing secret again under the current key "
                                "of secrets.webhook_keys (after adding a new key first)")
    reseal.set_defaults(handler=webhook_reseal_secrets)

    new_key = webhook.add_parser("new-key", help="print a fresh entry for secrets.webhook_keys (nothing is stored)")
    new_key.add_argument("--id", required=True, type=_key_id_arg, metavar="KEY_ID")
    new_key.set_defaults(handler=webhook_new_key)

    listed = webhook.add_parser("deliveries", help="an endpoint's deliveries log, newest first, with every attempt")
    listed.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    listed.add_argument("--limit", type=positive_int_arg, default=50, metavar="N")
    listed.add_argument("--status", choices=delivery_log.STATUSES)
    listed.add_argument("--starting-after", type=uuid_arg, metavar="DELIVERY_ID",
                        help="the next page: the next_cursor of the previous one")
    listed.set_defaults(handler=webhook_deliveries)


def webhook_add(request, args):
    if args.workspace and args.mode is None:
        raise webhooks.WebhookError("--workspace needs --mode live or --mode test")
    endpoint, secret = webhooks.add_endpoint(
        request.db, webhook_settings(request.registry), args.url, workspace_id=args.workspace, mode=args.mode,
        clinic_id=args.clinic, event_types=args.types)
    return {"endpoint_id": str(endpoint.id), "secret": secret}


def webhook_list(request, args):
    return {"endpoints": [webhooks.describe(e) for e in webhooks.list_endpoints(
        request.db, workspace_id=args.workspace, clinic_id=args.clinic, mode=args.mode)]}


@not_transactional
def webhook_test(request, args):
    return pings.send_test(request.registry[SESSION_FACTORY], webhook_settings(request.registry),
                           args.endpoint_id, registry=request.registry)


def webhook_replay(request, args):
    if args.delivery is not None:
        resent = replays.resend(request.db, args.endpoint_id, args.delivery)
        return {"endpoint_id": str(args.endpoint_id), "queued": 1, **resent}
    if args.since is not None:
        queued = replays.recover(request.db, args.endpoint_id, args.since)
    else:
        queued = replays.replay(request.db, args.endpoint_id, event_id=args.event, after_seq=args.after_seq,
                                clinic_id=args.clinic)
    return {"endpoint_id": str(args.endpoint_id), "queued": queued}


def webhook_rotate_secret(request, args):
    overlap = args.overlap_hours * 3600 if args.overlap_hours is not None else None
    endpoint, secret = webhooks.rotate_secret(request.db, webhook_settings(request.registry), args.endpoint_id,
                                              overlap_seconds=overlap)
    return {"endpoint_id": str(endpoint.id), "secret": secret,
            "previous_secret_expires_at": iso(endpoint.previous_secret_expires_at)}


def webhook_disable(request, args):
    return webhooks.describe(webhooks.disable(request.db, args.endpoint_id))


def webhook_enable(request, args):
    return webhooks.describe(webhooks.enable(request.db, args.endpoint_id))


def webhook_delete(request, args):
    webhooks.delete_endpoint(request.db, args.endpoint_id)
    return {"endpoint_id": str(args.endpoint_id), "deleted": True}


def webhook_deliveries(request, args):
    listed = delivery_log.page(request.db, args.endpoint_id, status=args.status, limit=args.limit,
                               starting_after=args.starting_after)
    return {"endpoint_id": str(args.endpoint_id), **listed.as_dict()}


def webhook_reseal_secrets(request, args):
    settings = webhook_settings(request.registry)
    resealed = webhooks.reseal_secrets(request.db, settings)
    return {"resealed": resealed, "key_id": settings.secret_box.current_key_id}


@not_transactional
def webhook_new_key(request, args):
    return {"key_id": args.id, "entry": secret_box.new_key_entry(args.id),
            "setting": secret_box.SETTING}
