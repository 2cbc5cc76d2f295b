"""The live-key gate: a workspace may create live keys only when it is verified, its business profile is
approved, it accepted the current API Terms and its plan is paid; in the portal, the acting member's email must
be verified too (`acting(account_id)`: a fifth condition; the operator's `key create` keeps the four). The
portal's key page and the operator CLI's `key create --mode live` ask this one place (registered as
clinicrecords.access's ILiveKeyGate)."""

from dataclasses import dataclass

from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.access.interfaces import ILiveKeyGate
from clinicrecords.onboarding.interfaces import IBusinessProfile
from clinicrecords.identity.services import IRecoveryService, ITermsService


@dataclass(frozen=True)
class Condition:
    code: str
    text: str  # as a checklist item
    need: str  # as what a live key needs
    page: str  # the workspace page where it is met


CONDITIONS = (
    Condition("not_verified", "The workspace's domain is verified", "a verified domain", "domain"),
    Condition("profile_not_approved", "The business profile is approved", "an approved business profile",
              "profile"),
    Condition("terms_not_accepted", "The current API Terms are accepted", "the current API Terms accepted", "terms"),
    Condition("plan_not_paid", "The plan is paid", "the paid plan", "plan"),
)
# The acting member's own condition; its page is the account's, not the workspace's.
EMAIL_VERIFIED = Condition("email_not_verified", "Your email address is verified", "your email address verified",
                           None)


def needs_sentence(missing):
    """'a verified domain, an approved business profile and the paid plan'"""
    needs = [condition.need for condition in missing]
    return needs[0] if len(needs) == 1 else ", ".join(needs[:-1]) + " and " + needs[-1]


@dataclass(frozen=True)
class ChecklistItem:
    condition: Condition
    met: bool
    in_review_since: object = None  # a submitted business profile waits for review: nothing to do now


@implementer(ILiveKeyGate)
class LiveKeyGate:
    def __init__(self, db, terms, profiles, recovery, account_id=None):
        self.db = db
        self.terms = terms
        self.profiles = profiles
        self.recovery = recovery
        self.account_id = account_id

    def acting(self, account_id):
        """The gate for a member acting in the portal: their email verified is a fifth condition."""
        return LiveKeyGate(self.db, self.terms, self.profiles, self.recovery, account_id)

    @property
    def _conditions(self):
        return CONDITIONS if self.account_id is None else (*CONDITIONS, EMAIL_VERIFIED)

    def _state(self, workspace_id):
        """{code: True/False} for every condition, in order, and when the profile was submitted if it waits
        for review."""
        workspace = access.get_workspace(self.db, workspace_id)
        profile = self.profiles.profile(workspace_id)
        met = {
            "not_verified": access.workspace_is_verified(self.db, workspace_id),
            "profile_not_approved": profile is not None and profile.status == "approved",
            "terms_not_accepted": self.terms.accepted_current(workspace_id),
            "plan_not_paid": workspace.plan == "paid",
        }
        if self.account_id is not None:
            met["email_not_verified"] = self.recovery.is_verified(self.account_id)
        return met, profile.submitted_at if profile is not None and profile.status == "submitted" else None

    def met(self, workspace_id):
        """{code: True/False} for every condition, in order."""
        return self._state(workspace_id)[0]

    def checklist(self, workspace_id):
        """A `ChecklistItem` per condition, in order."""
        met, in_review_since = self._state(workspace_id)
        return [ChecklistItem(condition, met[condition.code],
                              in_review_since if condition.code == "profile_not_approved" else None)
                for condition in self._conditions]

    def missing(self, workspace_id):
        met = self.met(workspace_id)
        return [condition for condition in self._conditions if not met[condition.code]]


def live_key_gate_factory(context, request):
    return LiveKeyGate(request.db, request.find_service(ITermsService), request.find_service(IBusinessProfile),
                       request.find_service(IRecoveryService))
