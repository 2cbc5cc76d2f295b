import argparse
import datetime

from clinicrecords.cli.arguments import datetime_arg, uuid_arg
from clinicrecords.clinics.services import open_clinic
from clinicrecords.errors import InvalidInput
from clinicrecords.scheduling import staff
from clinicrecords.scheduling.calendar import WEEKDAYS


def weekdays_arg(text):
    """`mon,tue` or `mon-fri` → weekday numbers (0 Monday .. 6 Sunday)."""
    days = set()
    for part in text.lower().split(","):
        first, _, last = part.strip().partition("-")
        if first not in WEEKDAYS or (last and last not in WEEKDAYS):
            raise argparse.ArgumentTypeError(f"weekdays are {', '.join(WEEKDAYS)} (e.g. mon-fri or mon,wed)")
        start, end = WEEKDAYS.index(first), WEEKDAYS.index(last or first)
        if end < start:
            raise argparse.ArgumentTypeError(f"{part!r} runs backwards")
        days.update(range(start, end + 1))
    return sorted(days)


def time_arg(text):
    try:
        value = datetime.time.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a time of day such as 09:00: {text!r}") from None
    if value.tzinfo is not None or value.second or value.microsecond:
        raise argparse.ArgumentTypeError("give a local time as HH:MM")
    return value


def register(commands):
    calendar = commands.add_parser("calendar", help="clinicians' calendars").add_subparsers(
        dest="action", required=True)
    hours = calendar.add_parser("hours", help="set a clinician's working hours (clinic local time) on weekdays")
    hours.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    hours.add_argument("provider_id", type=uuid_arg, metavar="PROVIDER_ID")
    hours.add_argument("--weekdays", type=weekdays_arg, required=True, metavar="DAYS", help="e.g. mon-fri, sat")
    hours.add_argument("--start", type=time_arg, metavar="HH:MM")
    hours.add_argument("--end", type=time_arg, metavar="HH:MM")
    hours.add_argument("--off", action="store_true", help="no working hours on these days")
    hours.set_defaults(handler=calendar_hours)

    block = calendar.add_parser("block", help="block a clinician's calendar (away): nothing can be booked")
    block.add_argument("--clinic", type=uuid_arg, required=True, metavar="CLINIC_ID")
    block.add_argument("provider_id", type=uuid_arg, metavar="PROVIDER_ID")
    block.add_argument("--from", dest="starts_at", type=datetime_arg, required=True, metavar="ISO")
    block.add_argument("--to", dest="ends_at", type=datetime_arg, required=True, metavar="ISO")
    block.add_argument("--reason")
    block.set_defaults(handler=calendar_block)


def _open(request, clinic_id):
    if open_clinic(request.db, clinic_id) is None:
        raise InvalidInput(f"no clinic {clinic_id}")


def calendar_hours(request, args):
    _open(request, args.clinic)
    if args.off and (args.start is not None or args.end is not None):
        raise InvalidInput("--off takes no --start or --end")
    if not args.off and (args.start is None or args.end is None):
        raise InvalidInput("give --start and --end, or --off")
    hours = staff.set_hours(request.db, args.provider_id, args.weekdays, args.start, args.end)
    return {"provider_id": str(args.provider_id), "working_hours": hours}


def calendar_block(request, args):
    _open(request, args.clinic)
    block = staff.block_time(request.db, args.provider_id, args.starts_at, args.ends_at, args.reason)
    return {"block_id": str(block.id), "provider_id": str(block.provider_id),
            "from": block.starts_at.isoformat(), "to": block.ends_at.isoformat(), "reason": block.reason}
