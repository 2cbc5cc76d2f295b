"""argparse types shared by every context's commands: they turn bad input into clear messages."""

import argparse
import datetime
import uuid


def uuid_arg(text):
    try:
        return uuid.UUID(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a uuid: {text!r}") from None


def datetime_arg(text):
    """ISO 8601; a time without a zone is taken as UTC."""
    try:
        value = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date-time: {text!r}") from None
    return value if value.tzinfo else value.replace(tzinfo=datetime.UTC)


def positive_int_arg(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def float_arg(text):
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
