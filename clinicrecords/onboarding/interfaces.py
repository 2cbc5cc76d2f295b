"""What the portal (and the operator CLI) call: found with `request.find_service(IDomainVerification)`."""

from zope.interface import Attribute, Interface


class IDomainVerification(Interface):
    """A workspace's domain, its TXT record and its checks (docs/verification.md)."""

    def status(workspace_id):
        """The `DomainStatus`, or None when the workspace has not entered a domain."""

    def set_domain(workspace_id, domain, now=None):
        """Claim a domain (validated; IDNA). A different domain issues a new TXT value and restarts the
        checks; the same domain again changes nothing. Raises InvalidInput. Returns the `DomainStatus`."""

    def check_now(workspace_id, now=None, min_interval=None):
        """The owner's "Check now": look up the record at once and restart the schedule. Returns the
        `DomainStatus`; raises InvalidInput when no domain was entered, and `CheckRefused` (with its
        `retry_after`) at once while another check of the workspace runs or, given `min_interval` (a
        timedelta), when the last check is more recent than that.

        Commits the caller's transaction before the lookup and begins another (no connection is held while
        DNS answers): what the caller wrote before is committed then, and what it writes after the call is
        in the new transaction."""

    def due_workspace_ids(now=None, limit=50):
        """Workspaces whose next automatic check is due, earliest first."""

    def check_if_due(workspace_id, now=None):
        """The automatic check of one workspace, unless it is no longer due or another check of it runs
        (then None, without waiting). Call it in a transaction of its own: it commits that transaction
        before the lookup, as `check_now` does."""


class IBusinessProfile(Interface):
    """The organization's business profile and its review by an operator."""

    statuses = Attribute("none, submitted, approved, rejected")

    def status(workspace_id):
        """"none" (never submitted), "submitted", "approved" or "rejected"."""

    def profile(workspace_id):
        """The `ProfileView`, or None when none was submitted."""

    def submit(workspace_id, *, legal_name, website, country, contact_email, intended_use, now=None):
        """Submit (or resubmit) for review; the workspace must be verified. Raises `ProfileInvalid` with a
        message per field, or InvalidInput. Returns the `ProfileView`."""

    def review(workspace_id, *, approve, reason=None, now=None):
        """An operator's decision on a submitted profile; a rejection needs a reason."""


# What other contexts name of onboarding, re-exported so they import it only through this module (the portal:
# the profile's refusal, the domain's normal form, a refused check, the outcomes of a DNS check and the lapse
# rule).
from clinicrecords.onboarding.domains import normalize_domain, website_host, website_on_domain  # noqa: E402
from clinicrecords.onboarding.errors import CheckRefused, ProfileInvalid  # noqa: E402
# The moments onboarding publishes (clinicrecords.publishing): the notifications listen.
from clinicrecords.onboarding.published import DomainLapsed, ProfileReviewed  # noqa: E402
from clinicrecords.onboarding.schedule import (  # noqa: E402
    DNS_ERROR, FOUND, LAPSE_AFTER_ABSENT_CHECKS, NO_TXT, NXDOMAIN, SERVFAIL, TIMEOUT, WRONG_VALUE)

__all__ = ["CheckRefused", "DNS_ERROR", "DomainLapsed", "FOUND", "IBusinessProfile", "IDomainVerification",
           "LAPSE_AFTER_ABSENT_CHECKS", "NO_TXT", "NXDOMAIN", "ProfileInvalid", "ProfileReviewed",
           "SERVFAIL", "TIMEOUT", "WRONG_VALUE",
           "normalize_domain", "website_host", "website_on_domain"]
