from clinicrecords.cli import command_group
from clinicrecords.cli.arguments import uuid_arg
from clinicrecords.clinics.services import open_clinic_or_fail
from clinicrecords.review.representations import REVIEW_STATUSES, staff_submission_json
from clinicrecords.review.kinds import CHART_KINDS
from clinicrecords.review.services import (StaffReview, accept_as_staff, decline_as_staff, pause_settings,
                                           review_item_as_staff)
from clinicrecords.settings import app_settings


def _staff(request, clinic_id):
    return StaffReview(request.db, request.registry, open_clinic_or_fail(request.db, clinic_id))


def _iso(value):
    return value.isoformat() if value else None


def register(commands):
    _register_submission(commands)
    _register_item(commands)
    _register_auto_accept(commands)


def _clinic_arg(parser):
    parser.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")


def _register_submission(commands):
    submission = commands.add_parser("submission", help="the clinic's review queue").add_subparsers(
        dest="action", required=True)
    listing = submission.add_parser("list", help="submissions, oldest first")
    _clinic_arg(listing)
    listing.add_argument("--status", choices=REVIEW_STATUSES)
    listing.set_defaults(handler=submission_list)

    accept = submission.add_parser("accept", help="a clinician confirms a pending submission")
    _clinic_arg(accept)
    accept.add_argument("submission_id", type=uuid_arg, metavar="SUBMISSION_ID")
    accept.add_argument("--staff-id", type=uuid_arg, metavar="ID")
    accept.set_defaults(handler=submission_accept)

    decline = submission.add_parser("decline", help="a clinician declines a pending submission")
    _clinic_arg(decline)
    decline.add_argument("submission_id", type=uuid_arg, metavar="SUBMISSION_ID")
    decline.add_argument("--reason")
    decline.add_argument("--staff-id", type=uuid_arg, metavar="ID")
    decline.set_defaults(handler=submission_decline)


def submission_list(request, args):
    return {"data": [staff_submission_json(s) for s in _staff(request, args.clinic).submissions(args.status)]}


def submission_accept(request, args):
    return accept_as_staff(request.db, request.registry, open_clinic_or_fail(request.db, args.clinic),
                           args.submission_id, args.staff_id)


def submission_decline(request, args):
    return decline_as_staff(request.db, request.registry, open_clinic_or_fail(request.db, args.clinic),
                            args.submission_id, args.reason, args.staff_id)


def _register_item(commands):
    item = command_group(commands, "item", help="inventory items and chart items")
    review = item.add_parser("review", help="mark an automatically accepted item reviewed")
    _clinic_arg(review)
    review.add_argument("--kind", required=True, choices=CHART_KINDS)
    review.add_argument("item_id", type=uuid_arg, metavar="ITEM_ID")
    review.add_argument("--staff-id", type=uuid_arg, metavar="ID")
    review.set_defaults(handler=item_review)


def item_review(request, args):
    return review_item_as_staff(request.db, request.registry, open_clinic_or_fail(request.db, args.clinic), args.kind,
                                args.item_id, args.staff_id)


def _register_auto_accept(commands):
    auto = commands.add_parser("auto-accept", help="automatic acceptance of new items").add_subparsers(
        dest="action", required=True)
    change = auto.add_parser("set", help="switch automatic acceptance for a key or a connected workspace")
    _clinic_arg(change)
    sender = change.add_mutually_exclusive_group(required=True)
    sender.add_argument("--key", metavar="KEY_ID", help="the key id printed by `key create`")
    sender.add_argument("--workspace", type=uuid_arg, metavar="WORKSPACE_ID")
    change.add_argument("--kinds", required=True, help="comma-separated: " + ",".join(CHART_KINDS))
    switch = change.add_mutually_exclusive_group(required=True)
    switch.add_argument("--on", dest="enabled", action="store_const", const=True)
    switch.add_argument("--off", dest="enabled", action="store_const", const=False)
    change.set_defaults(handler=auto_accept_set)

    show = auto.add_parser("show", help="settings and every pause on unusual volume")
    _clinic_arg(show)
    show.set_defaults(handler=auto_accept_show)


def _setting_json(staff, setting):
    return {"sender_type": setting.sender_type, "sender_id": str(setting.sender_id), "kind": setting.kind,
            "enabled": setting.enabled, "paused_at": _iso(setting.paused_at),
            "connected_at": _iso(setting.connected_at), "switched_on_at": _iso(setting.switched_on_at),
            "for_current_connection": staff.for_current_connection(setting)}


def auto_accept_set(request, args):
    kinds = [kind.strip() for kind in args.kinds.split(",") if kind.strip()]
    staff = _staff(request, args.clinic)
    settings = staff.set_auto_accept(kinds, args.enabled, key_id=args.key, workspace_id=args.workspace)
    return {"settings": [_setting_json(staff, setting) for setting in settings]}


def auto_accept_show(request, args):
    staff = _staff(request, args.clinic)
    settings, pauses = staff.auto_accept_state()
    threshold, window = pause_settings(app_settings(request.registry).review)
    return {
        "pause_threshold": threshold, "pause_window_minutes": window,
        "settings": [_setting_json(staff, setting) for setting in settings],
        "pauses": [{"sender_type": p.sender_type, "sender_id": str(p.sender_id), "kind": p.kind,
                    "paused_at": _iso(p.paused_at), "accepted_in_window": p.accepted_in_window,
                    "threshold": p.threshold, "window_minutes": p.window_minutes,
                    "submission_id": str(p.submission_id), "resumed_at": _iso(p.resumed_at)} for p in pauses],
    }
