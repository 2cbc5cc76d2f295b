"""The portal's audit trail as people read it: each action a sentence ("Changed the roles of ada@example.org
from clinician to admin and clinician"), roles, kinds and permissions in words, dates as dates, and a time in a
named time zone. The audit rows keep their codes (the operator's and the tests' vocabulary); only the page
reads them this way. An action this module has no sentence for still reads as words, never as its code."""

import datetime
import re
import zoneinfo
from dataclasses import dataclass, field

from clinicrecords.access.interfaces import describe_permission

_ISO_MOMENT = re.compile(r"^\d{4}-\d{2}-\d{2}(T[\d:.]+([+-]\d{2}:\d{2}|Z)?)?$")


def local_time(moment, zone_name="UTC", with_zone=True):
    """`moment` (aware; a naive one is UTC) as "29 Nov 2026, 08:26 CET" in the named IANA zone."""
    if moment is None:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    try:
        zone = zoneinfo.ZoneInfo(zone_name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = datetime.UTC
    local = moment.astimezone(zone)
    text = f"{local.day} {local.strftime('%b %Y, %H:%M')}"
    return f"{text} {local.tzname()}" if with_zone else text


def clinic_time(moment, clinic):
    """A moment as the clinic's staff read it: in the clinic's time zone, named ("29 Nov 2026, 08:26 CET")."""
    return local_time(moment, clinic.timezone)


def day(value):
    """A date (or a moment, or its ISO text) as "31 Dec 2099"."""
    if isinstance(value, str):
        try:
            value = datetime.datetime.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, datetime.datetime):
        value = value.date()
    return f"{value.day} {value.strftime('%b %Y')}"


def words(code):
    """A code (`role_changed`, `medication_statement`) as words."""
    return str(code).replace("_", " ").replace(".", " ").strip()


def joined(items):
    """["a", "b", "c"] as "a, b and c"."""
    items = [str(item) for item in items]
    if not items:
        return "nothing"
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def value_text(value):
    """Any detail's value in words: lists joined, dates as dates, booleans as yes or no, codes as words."""
    if value is None or value == "" or value == []:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return joined(value_text(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{words(k)}: {value_text(v)}" for k, v in value.items())
    if isinstance(value, (datetime.date, datetime.datetime)):
        return day(value)
    if isinstance(value, str) and _ISO_MOMENT.match(value):
        return day(value)
    return str(value)


@dataclass(frozen=True)
class Facts:
    """What a page knows beside an entry: the name its target resolved to, and, on a clinic's trail, the
    patient and the submission (kind, patient's name, reason) the target names."""

    target_name: str | None = None
    patient_name: str | None = None
    reason: str | None = None
    notes: tuple = field(default_factory=tuple)


def _roles(details, name="roles"):
    roles = details.get(name) or ([details["role"]] if details.get("role") else [])
    return joined(roles) if roles else "no role"


def _plural(kind):
    name = words(kind)
    return name[:-1] + "ies" if name.endswith("y") else name + "s"


def _kinds(kinds):
    """Review kinds as a clinician names them: "allergies and medication statements"."""
    return joined(_plural(kind) for kind in kinds)


def _permissions(scopes):
    return joined(describe_permission(scope).rstrip(".").lower() for scope in scopes or [])


def _until(details):
    expires = details.get("expires_at")
    return f", until the end of {day(expires)}" if expires else ", with no end date"


def _who(facts, fallback):
    return facts.target_name or fallback


def _item(details, facts, noun=None):
    kind = words(details.get("kind") or noun or "item")
    return f"the {kind} for {facts.patient_name}" if facts.patient_name else f"a {kind}"


def _sentence(entry, facts):
    action, details, target = entry.action, entry.details or {}, entry.target or ""
    party = _who(facts, "an organization")
    sentences = {
        "staff.invited": lambda: f"Invited {target} to the staff as {_roles(details)}",
        "staff.invitation_cancelled": lambda: f"Cancelled the invitation of {target} to the staff",
        "staff.joined": lambda: f"Joined the staff as {_roles(details)}",
        "staff.role_changed": lambda: (f"Changed the roles of {target} from {_roles(details, 'before')} to "
                                       f"{_roles(details, 'after')}"),
        "staff.removed": lambda: f"Removed {target} ({_roles(details)}) from the staff",
        "staff.left": lambda: f"Left the staff (was {_roles(details)})",
        "workspace.created": lambda: f"Created the workspace “{target}”",
        "workspace.closed": lambda: f"Closed the workspace “{target}”",
        "workspace.second_factor_required": lambda: "Required a second factor of every member",
        "workspace.second_factor_optional": lambda: "Made a second factor optional for the members",
        "terms.accepted": lambda: f"Accepted the API Terms of Use (version {target})",
        "terms.recorded": lambda: (f"Recorded that {details.get('accepted_by') or 'the organization'} accepted "
                                   f"the API Terms of Use (version {target})"),
        "profile.submitted": lambda: f"Submitted the business profile of “{target}” for review",
        "plan.changed": lambda: f"Changed the plan to {words(target)}",
        "domain.set": lambda: (f"Set the domain to {target}" + (f" (was {details['previous']})"
                                                                if details.get("previous") else "")),
        "domain.checked": lambda: (f"Checked the domain {target} now: {words(details.get('result') or 'no answer')}"
                                   f" ({words(details.get('state') or 'pending')})"),
        "member.invited": lambda: f"Invited {target} to the workspace as {_roles(details)}",
        "member.invitation_cancelled": lambda: f"Cancelled the invitation of {target} to the workspace",
        "member.added": lambda: f"Joined the workspace as {_roles(details)}",
        "member.role_changed": lambda: (f"Changed the role of {target} from {_roles(details, 'before')} to "
                                        f"{_roles(details, 'after')}"),
        "member.removed": lambda: f"Removed {target} ({_roles(details)}) from the workspace",
        "member.left": lambda: f"Left the workspace (was {_roles(details)})",
        "submission.accepted": lambda: f"Accepted {_item(details, facts)} into the chart",
        "submission.declined": lambda: f"Declined {_item(details, facts)}",
        "item.reviewed": lambda: f"Marked {_item(details, facts)} reviewed (accepted automatically)",
        "auto_accept.changed": lambda: "; ".join(
            part for part in (
                f"Switched automatic acceptance on for {_kinds(details['switched_on'])} from {party}"
                if details.get("switched_on") else "",
                f"{'switched' if details.get('switched_on') else 'Switched'} it off for "
                f"{_kinds(details['switched_off'])} from {party}" if details.get("switched_off") else "")
            if part) or f"Saved automatic acceptance for {party} unchanged",
        "auto_accept.resumed": lambda: (f"Resumed automatic acceptance of {_kinds([details.get('kind', '')])} "
                                        f"from {party}"),
        "access_report.downloaded": lambda: (f"Downloaded who read the records of "
                                             f"{facts.patient_name or 'a patient'}"),
        "connection.requested": lambda: (f"Asked {_who(facts, 'a clinic')} to connect, for "
                                         f"{_permissions(details.get('scopes'))}"),
        "connection.withdrawn": lambda: f"Withdrew the request to {_who(facts, 'a clinic')}",
        "connection.approved": lambda: (f"Connected {party}: {_permissions(details.get('scopes'))}"
                                        f"{_until(details)}"),
        "connection.declined": lambda: f"Declined the request of {party} to connect",
        "connection.narrowed": lambda: (f"Changed the connection of {party} to "
                                        f"{_permissions(details.get('scopes'))}{_until(details)}"),
        "connection.revoked": lambda: f"Revoked the connection of {party}",
        "key.created": lambda: (f"Created the {details.get('mode', '')} key {target}".replace("  ", " ")
                                + (f" named “{details['name']}”" if details.get("name") else "")),
        "key.revoked": lambda: f"Revoked the key {target}",
        "key.rolled": lambda: (f"Rolled the key {target}: the new key is {details.get('new_key', '')}, the old one "
                               f"stops {local_time_of(details.get('old_key_stops'))}"),
        "key.ip_allow_changed": lambda: (f"Set the addresses the key {target} may call from to "
                                         f"{value_text(details['ip_allow']) if details.get('ip_allow') else 'any'}"),
        "key.renamed": lambda: f"Renamed the key {target} to “{details.get('name', '')}”",
        "webhook.added": lambda: (f"Added the webhook {target} for "
                                  f"{value_text(details.get('types')) if details.get('types') else 'every type'}"),
        "webhook.secret_revealed": lambda: f"Revealed the signing secret of the webhook {target}",
        "webhook.secret_rotated": lambda: f"Rotated the signing secret of the webhook {target}",
        "webhook.disabled": lambda: f"Disabled the webhook {target}",
        "webhook.enabled": lambda: f"Enabled the webhook {target}",
        "webhook.deleted": lambda: f"Deleted the webhook {target}",
        "webhook.test_sent": lambda: (f"Sent a test event to the webhook {target}: it answered "
                                      f"{details.get('status_code') or 'nothing'}"),
        "webhook.resent": lambda: f"Sent a delivery to the webhook {target} again",
        "webhook.recovered": lambda: (f"Sent again to the webhook {target} what failed since "
                                      f"{local_time_of(details.get('since'))} ({details.get('queued', 0)} queued)"),
    }
    found = sentences.get(action)
    if found is not None:
        try:
            return found()
        except (KeyError, TypeError, ValueError):
            pass  # a row older than its sentence: said in words below
    subject = facts.target_name or target
    parts = [words(action).capitalize() + (f": {subject}" if subject else "")]
    parts += [f"{words(name)} {value_text(value)}" for name, value in details.items()
              if not name.endswith("_id") and name not in ("mode",)]
    return "; ".join(parts)


def local_time_of(text):
    """An ISO moment a detail holds, as the page's other times read (UTC: the detail names no zone)."""
    try:
        return local_time(datetime.datetime.fromisoformat(text))
    except (TypeError, ValueError):
        return value_text(text)


@dataclass(frozen=True)
class ActivityRow:
    """One audit entry as a page shows it."""

    at: datetime.datetime
    when: str           # in the page's time zone, named
    who: str            # a member's email, or "An operator"
    what: str           # the sentence
    named: object       # the target's NamedTarget (its id shown beside the name), or None
    notes: tuple        # further lines: a decline's reason


def activity_row(entry, who, named, facts=Facts(), zone_name="UTC"):
    facts = Facts(named.name if named else facts.target_name, facts.patient_name, facts.reason, facts.notes)
    notes = tuple(facts.notes) + ((f"Reason given: {facts.reason}",) if facts.reason else ())
    return ActivityRow(entry.at, local_time(entry.at, zone_name), who or "An operator",
                       _sentence(entry, facts), named, notes)
