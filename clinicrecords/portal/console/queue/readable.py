"""Submissions and chart items as a clinician reads them: labelled values, not JSON. A coded value reads as its
text with its code beside it ("Penicillin (RxNorm 7980)"), a date as a date ("2 Mar 2024")."""

import datetime
import re

BOOKKEEPING = {"id", "patient_id", "accepted_by", "reviewed_at", "reviewed_by_staff_id",
               "source_submission_id",
               "created_at", "updated_at", "sender_owner_id", "acted_at"}


# The code systems a coded value may carry, as clinicians name them.
CODE_SYSTEMS = {"rxnorm": "RxNorm", "icd10": "ICD-10", "icd10_code": "ICD-10", "snomed": "SNOMED CT",
                "loinc": "LOINC", "cvx": "CVX", "code": "code"}
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def label(name):
    return name.replace("_", " ").capitalize()


def _date(value):
    return f"{value.day} {value.strftime('%b %Y')}"


def coded(value):
    """{"text": "Penicillin", "rxnorm": "7980"} as "Penicillin (RxNorm 7980)"; the codes alone without a text."""
    codes = [f"{CODE_SYSTEMS.get(k, label(k))} {text(v)}" for k, v in value.items()
             if k != "text" and v not in (None, "", [])]
    words = text(value["text"]) if value.get("text") not in (None, "") else ""
    if words and codes:
        return f"{words} ({', '.join(codes)})"
    return words or ", ".join(codes) or "—"


def text(value):
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, dict):
        if "text" in value or set(value) <= set(CODE_SYSTEMS):
            return coded(value)
        return ", ".join(f"{label(k)}: {text(v)}" for k, v in value.items() if v not in (None, "", []))
    if isinstance(value, list):
        return "; ".join(text(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime.datetime):
        return f"{_date(value)}, {value.strftime('%H:%M')}"
    if isinstance(value, datetime.date):
        return _date(value)
    if isinstance(value, str) and _ISO_DATE.match(value):
        try:
            return _date(datetime.date.fromisoformat(value))
        except ValueError:
            return value
    return str(value)


def payload_rows(payload):
    return [(label(name), text(value)) for name, value in payload.items() if name != "patient_id"]


def item_summary(kind, item):
    """The item as a line: the fields its review kind names at a glance (`summary_fields`), else every set
    column of its own."""
    if getattr(item, "entry", None) == "no_known_allergies":
        return "No known allergies"
    names = kind.summary_fields or [c.name for c in item.__table__.columns if c.name not in BOOKKEEPING]
    # A coded field held in two columns reads under its own name: "Substance: Peanut (RxNorm 7980)".
    coded_as = {parts["text"]: field for field, parts in (kind.renames or {}).items() if "text" in parts}
    parts = [f"{label(coded_as[name])}: {current_value(item, coded_as[name], kind.renames)}" if name in coded_as
             else f"{label(name)}: {text(getattr(item, name, None))}" for name in names
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
