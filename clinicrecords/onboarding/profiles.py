"""The business profile: submitted once the workspace is verified, then approved or rejected by an
operator."""

import dataclasses
import datetime
import re
import urllib.parse
import uuid

import pycountry
from sqlalchemy.dialects.postgresql import insert
from zope.interface import implementer

from clinicrecords import clock
from clinicrecords.access import services as access
from clinicrecords.errors import InvalidInput
from clinicrecords.mail.services import NAME_REFUSED, holds_link_or_key
from clinicrecords.onboarding.domains import InvalidDomain, normalize_domain
from clinicrecords.onboarding.errors import ProfileInvalid
from clinicrecords.onboarding.interfaces import IBusinessProfile
from clinicrecords.onboarding.models import BusinessProfile
from clinicrecords.onboarding.published import ProfileReviewed
from clinicrecords.onboarding.snapshots import snapshot_json
from clinicrecords.publishing import request_publisher

NONE, SUBMITTED, APPROVED, REJECTED = "none", "submitted", "approved", "rejected"
STATUSES = (NONE, SUBMITTED, APPROVED, REJECTED)
MAX_LEGAL_NAME, MAX_WEBSITE, MAX_EMAIL, MAX_INTENDED_USE, MAX_REASON = 200, 2048, 254, 2000, 2000
# The intended use is read by a reviewer deciding on live keys: a sentence at least, not a word.
MIN_INTENDED_USE_WORDS, MIN_INTENDED_USE_CHARACTERS = 4, 20
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CONTROL_BUT_LINES = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # tabs and line breaks allowed
_EMAIL_LOCAL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}")


@dataclasses.dataclass(frozen=True)
class ProfileView:
    workspace_id: uuid.UUID
    legal_name: str
    website: str
    country: str
    contact_email: str
    intended_use: str
    status: str
    submitted_at: datetime.datetime
    reviewed_at: datetime.datetime | None
    review_reason: str | None

    @classmethod
    def of(cls, row):
        return cls(*(getattr(row, field.name) for field in dataclasses.fields(cls)))

    def as_json(self):
        return snapshot_json(self)


def _text(value, maximum, multiline=False):
    value = (value or "").strip()
    if not value:
        return None, "is required"
    if len(value) > maximum:
        return None, f"must be at most {maximum} characters"
    if (_CONTROL_BUT_LINES if multiline else _CONTROL).search(value):
        return None, "must not contain control characters"
    return value, None


def _name(value, maximum):
    value, error = _text(value, maximum)
    if not error and holds_link_or_key(value):
        return None, NAME_REFUSED.replace("cannot contain", "must not contain")
    return value, error


def _website(value):
    value, error = _text(value, MAX_WEBSITE)
    if error:
        return None, error
    parts = urllib.parse.urlsplit(value)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None, "must be a web address starting with https:// (or http://)"
    if "@" in parts.netloc:
        return None, "must not contain a user name or password"
    try:
        normalize_domain(parts.hostname or "")
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except (InvalidDomain, ValueError):
        return None, "must name a host by its domain name"
    return value, None


def _intended_use(value):
    value, error = _text(value, MAX_INTENDED_USE, multiline=True)
    if error:
        return None, error
    if len(value.split()) < MIN_INTENDED_USE_WORDS or len(value) < MIN_INTENDED_USE_CHARACTERS:
        return None, (f"must be a sentence at least ({MIN_INTENDED_USE_WORDS} words or more): what your product "
                      "does with clinics' records")
    return value, None


def _country(value):
    code = (value or "").strip().upper()
    if len(code) != 2 or pycountry.countries.get(alpha_2=code) is None:
        return None, "must be an ISO 3166-1 alpha-2 country code, e.g. GB or US"
    return code, None


def _email(value):
    value, error = _text(value, MAX_EMAIL)
    if error:
        return None, error
    local, at, domain = value.rpartition("@")
    if not at or not _EMAIL_LOCAL.fullmatch(local) or local.startswith(".") or local.endswith(".") \
            or ".." in local:
        return None, "must be an email address such as dev@example.com"
    try:
        return f"{local}@{normalize_domain(domain)}", None
    except InvalidDomain:
        return None, "must be an email address whose domain is a valid domain name"


def validate_profile(legal_name, website, country, contact_email, intended_use):
    """The cleaned fields, or ProfileInvalid naming every field that is wrong."""
    checked = {
        "legal_name": _name(legal_name, MAX_LEGAL_NAME),
        "website": _website(website),
        "country": _country(country),
        "contact_email": _email(contact_email),
        "intended_use": _intended_use(intended_use),
    }
    errors = {field: error for field, (_, error) in checked.items() if error}
    if errors:
        raise ProfileInvalid(errors)
    return {field: value for field, (value, _) in checked.items()}


@implementer(IBusinessProfile)
class BusinessProfileService:
    statuses = STATUSES

    def __init__(self, db, publish):
        self.db = db
        self.publish = publish  # tells of a review's end (clinicrecords.publishing)

    def status(self, workspace_id):
        row = self.db.get(BusinessProfile, workspace_id)
        return row.status if row is not None else NONE

    def profile(self, workspace_id):
        row = self.db.get(BusinessProfile, workspace_id)
        return ProfileView.of(row) if row is not None else None

    def submit(self, workspace_id, *, legal_name, website, country, contact_email, intended_use, now=None):
        fields = validate_profile(legal_name, website, country, contact_email, intended_use)
        if not access.workspace_is_verified(self.db, workspace_id):
            raise InvalidInput("the workspace's domain must be verified before its profile is submitted")
        # A changed profile is reviewed again, even one approved before. One upsert: two submissions at
        # once end as one of them, whole.
        values = {**fields, "status": SUBMITTED, "submitted_at": now or clock.now(), "reviewed_at": None,
                  "review_reason": None}
        row = self.db.scalar(
            insert(BusinessProfile).values(workspace_id=workspace_id, **values)
            .on_conflict_do_update(index_elements=[BusinessProfile.workspace_id], set_=values)
            .returning(BusinessProfile), execution_options={"populate_existing": True})
        return ProfileView.of(row)

    def review(self, workspace_id, *, approve, reason=None, now=None):
        access.get_workspace(self.db, workspace_id)
        reason = (reason or "").strip() or None
        if not approve and reason is None:
            raise InvalidInput("a rejection needs a reason (--reason TEXT): the organization is shown it")
        if reason is not None and len(reason) > MAX_REASON:
            raise InvalidInput(f"the reason must be at most {MAX_REASON} characters")
        row = self.db.get(BusinessProfile, workspace_id, with_for_update=True)
        status = row.status if row is not None else NONE
        if status != SUBMITTED:
            raise InvalidInput(f"the profile is {status}: only a submitted profile can be reviewed")
        row.status = APPROVED if approve else REJECTED
        row.reviewed_at, row.review_reason = now or clock.now(), reason
        self.db.flush()
        self.publish(ProfileReviewed(workspace_id, approve))
        return ProfileView.of(row)


def business_profile_factory(context, request):
    return BusinessProfileService(request.db, request_publisher(request))
