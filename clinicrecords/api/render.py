"""Small helpers for rendering plain JSON answers."""


def iso(value):
    """ISO 8601 for a date or date-time, None stays None."""
    return value.isoformat() if value is not None else None
