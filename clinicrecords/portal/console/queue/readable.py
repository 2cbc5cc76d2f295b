"""Submissions and chart items as a clinician reads them: labelled values, not JSON."""

import datetime

BOOKKEEPING = {"id", "patient_id", "accepted_by", "reviewed_at", "reviewed_by_staff_id",
               "source_submission_id",
               "created_at", "updated_at", "sender_owner_id", "acted_at"}


def label(name):
    return name.replace("_", " ").capitalize()


def text(value):
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, dict):
        return ", ".join(f"{label(k)}: {text(v)}" for k, v in value.items() if v not in (None, "", []))
    if isinstance(value, list):
        return "; ".join(text(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value)


def payload_rows(payload):
    return [(label(name), text(value)) for name, value in payload.items() if name != "patient_id"]


def item_summary(kind, item):
    """The item as a line: the fields its review kind names at a glance (`summary_fields`), else every set
    column of its own."""
    if getattr(item, "entry", None) == "no_known_allergies":
        return "No known allergies"
    names = kind.summary_fields or [c.name for c in item.__table__.columns if c.name not in BOOKKEEPING]
    parts = [f"{label(name)}: {text(getattr(item, name, None))}" for name in names
             if getattr(item, name, None) not in (None, "", [])]
    return "; ".join(parts)


def current_value(item, name, renames):
    """What the chart holds for a payload field (a coded field is held in two columns)."""
    if name in (renames or {}):
        return text({part: getattr(item, attribute, None) for part, attribute in renames[name].items()})
    return text(getattr(item, name, None))


def change_rows(payload, item, renames):
    """(field, on the chart now, proposed) for a proposed update or retraction."""
    return [(label(name), current_value(item, name, renames), text(value))
            for name, value in payload.items() if name != "patient_id"]
