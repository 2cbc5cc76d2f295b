"""`webhook add|list|test|replay|rotate-secret|reseal-secrets|new-key|delete|deliveries`: operators manage webhook endpoints."""

import argparse

from clinicrecords.api.render import iso
from clinicrecords.cli import not_transactional
from clinicrecords.cli.arguments import positive_int_arg, uuid_arg
from clinicrecords.errors import InvalidInput
from clinicrecords.events import delivery, secret_box, webhooks
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
    listing.set_defaults(handler=webhook_list)

    test = webhook.add_parser("test", help="send a signed webhook.ping now and report the answer")
    test.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    test.set_defaults(handler=webhook_test)

    replay = webhook.add_parser("replay", help="deliver kept events again")
    replay.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    which = replay.add_mutually_exclusive_group(required=True)
    which.add_argument("--event", type=uuid_arg, metavar="EVENT_ID")
    which.add_argument("--after-seq", type=_seq_arg, metavar="N")
    replay.add_argument("--clinic", type=uuid_arg, metavar="CLINIC_ID")
    replay.set_defaults(handler=webhook_replay)

    rotate = webhook.add_parser("rotate-secret", help="new signing secret; the old one also signs for the overlap")
    rotate.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    rotate.set_defaults(handler=webhook_rotate_secret)

    remove = webhook.add_parser("delete", help="delete an endpoint and its deliveries")
    remove.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    remove.set_defaults(handler=webhook_delete)

    reseal = webhook.add_parser("reseal-secrets", help="seal every signing secret again under the current key "
                                "of secrets.webhook_keys (after adding a new key first)")
    reseal.set_defaults(handler=webhook_reseal_secrets)

    new_key = webhook.add_parser("new-key", help="print a fresh entry for secrets.webhook_keys (nothing is stored)")
    new_key.add_argument("--id", required=True, type=_key_id_arg, metavar="KEY_ID")
    new_key.set_defaults(handler=webhook_new_key)

    listed = webhook.add_parser("deliveries", help="an endpoint's latest deliveries, newest first")
    listed.add_argument("endpoint_id", type=uuid_arg, metavar="ENDPOINT_ID")
    listed.add_argument("--limit", type=positive_int_arg, default=50, metavar="N")
    listed.add_argument("--status", choices=("pending", "delivered", "failed", "cancelled"))
    listed.set_defaults(handler=webhook_deliveries)


def webhook_add(request, args):
    if args.workspace and args.mode is None:
        raise webhooks.WebhookError("--workspace needs --mode live or --mode test")
    endpoint, secret = webhooks.add_endpoint(
        request.db, webhook_settings(request.registry), args.url, workspace_id=args.workspace, mode=args.mode,
        clinic_id=args.clinic, event_types=args.types)
    return {"endpoint_id": str(endpoint.id), "secret": secret}


def webhook_list(request, args):
    return {"endpoints": [webhooks.describe(e) for e in
                          webhooks.list_endpoints(request.db, workspace_id=args.workspace, clinic_id=args.clinic)]}


@not_transactional
def webhook_test(request, args):
    with request.tm:
        endpoint = webhooks.get_endpoint(request.db, args.endpoint_id)
        try:  # before the ping is recorded, so a refusal changes nothing
            webhook_settings(request.registry).secret_box.open(endpoint.secret_sealed, endpoint.id)
        except secret_box.SecretBoxError as error:
            raise InvalidInput(str(error)) from None
        ping = webhooks.ping(request.db, args.endpoint_id)
        delivery_id, webhook_id = ping.id, ping.event_id
    outcome = delivery.attempt(request.registry, delivery_id)
    with request.tm:
        endpoint = webhooks.get_endpoint(request.db, args.endpoint_id)
        status = webhooks.describe(endpoint)["status"]
    return {"endpoint_id": str(args.endpoint_id), "delivery_id": str(delivery_id), "webhook_id": str(webhook_id),
            "delivered": outcome.status == "delivered", "status_code": outcome.status_code,
            "error": outcome.error, "endpoint_status": status}


def webhook_replay(request, args):
    queued = webhooks.replay(request.db, args.endpoint_id, event_id=args.event, after_seq=args.after_seq,
                             clinic_id=args.clinic)
    return {"endpoint_id": str(args.endpoint_id), "queued": queued}


def webhook_rotate_secret(request, args):
    endpoint, secret = webhooks.rotate_secret(request.db, webhook_settings(request.registry), args.endpoint_id)
    return {"endpoint_id": str(endpoint.id), "secret": secret,
            "previous_secret_expires_at": iso(endpoint.previous_secret_expires_at)}


def webhook_delete(request, args):
    webhooks.delete_endpoint(request.db, args.endpoint_id)
    return {"endpoint_id": str(args.endpoint_id), "deleted": True}


def webhook_deliveries(request, args):
    if args.limit > webhooks.DELIVERIES_LIMIT:
        raise webhooks.WebhookError(f"--limit is at most {webhooks.DELIVERIES_LIMIT}")
    return {"endpoint_id": str(args.endpoint_id),
            "deliveries": webhooks.deliveries(request.db, args.endpoint_id, args.limit, args.status)}


def webhook_reseal_secrets(request, args):
    settings = webhook_settings(request.registry)
    resealed = webhooks.reseal_secrets(request.db, settings)
    return {"resealed": resealed, "key_id": settings.secret_box.current_key_id}


@not_transactional
def webhook_new_key(request, args):
    return {"key_id": args.id, "entry": secret_box.new_key_entry(args.id),
            "setting": secret_box.SETTING}
