"""The profile pages' service: onboarding's business profile with the portal's audit trail and form errors."""

from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.errors import InvalidInput
from clinicrecords.onboarding.interfaces import (IBusinessProfile, IDomainVerification, ProfileInvalid, website_host,
                                                 website_on_domain)
from clinicrecords.portal.developer.profile.interfaces import IProfilePages
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit

NOT_VERIFIED = "Verify your workspace's domain first: the profile can be submitted once it is verified"


def _sentence(message):
    return message[:1].upper() + message[1:]


# onboarding's messages name the rule ("is required"); the form says which field.
LABELS = {"legal_name": "Legal name", "website": "Website", "country": "Country",
          "contact_email": "Contact email", "intended_use": "Intended use"}


def _field_message(field, message):
    return f"{LABELS[field]} {message}" if message.startswith(("is ", "must ")) else _sentence(message)


@implementer(IProfilePages)
class ProfilePages:
    def __init__(self, db, profiles, audit, domains):
        self.db = db
        self.profiles = profiles
        self.audit = audit
        self.domains = domains

    def profile(self, workspace_id):
        return self.profiles.profile(workspace_id)

    def website_elsewhere(self, workspace_id, profile):
        """(the website's host, the verified domain) when the profile's website is not on the workspace's
        verified domain, else None: allowed, but the page warns that the reviewer will ask."""
        domain = self.domains.status(workspace_id)
        if profile is None or domain is None or domain.state != "verified" \
                or website_on_domain(profile.website, domain.domain):
            return None
        return website_host(profile.website), domain.domain

    def submittable(self, workspace_id):
        return access.workspace_is_verified(self.db, workspace_id)

    def submit(self, workspace_id, fields, account_id):
        if not self.submittable(workspace_id):
            raise FormError("verified", NOT_VERIFIED)
        try:
            profile = self.profiles.submit(workspace_id, **{name: fields.get(name, "") for name in LABELS})
        except ProfileInvalid as exc:
            raise FormError(errors={field: _field_message(field, message)
                                    for field, message in exc.errors.items()}) from None
        except InvalidInput as exc:
            raise FormError("verified", _sentence(str(exc))) from None
        self.audit.record("profile.submitted", account_id=account_id, workspace_id=workspace_id,
                          target=profile.legal_name)
        return profile


def profile_pages_factory(context, request):
    return ProfilePages(request.db, request.find_service(IBusinessProfile), request.find_service(IPortalAudit),
                        request.find_service(IDomainVerification))
