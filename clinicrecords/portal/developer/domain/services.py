"""The domain pages' service: onboarding's verification with the portal's audit trail and form errors."""

import datetime

from zope.interface import implementer

from clinicrecords.errors import InvalidInput
from clinicrecords.onboarding import interfaces as onboarding
from clinicrecords.onboarding.interfaces import IDomainVerification, normalize_domain
from clinicrecords.portal.developer.domain.interfaces import IDomainPages
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit


def _sentence(message):
    return message[:1].upper() + message[1:]


def _domain_error(exc):
    return FormError("domain", _sentence(str(exc)))


class CheckRefused(FormError):
    """A check the page refuses at once (one is running, or the last was moments ago): `retry_after`."""

    def __init__(self, message, retry_after):
        super().__init__("check", message)
        self.retry_after = retry_after


@implementer(IDomainPages)
class DomainPages:
    def __init__(self, verification, audit, check_interval):
        self.verification = verification
        self.audit = audit
        self.check_interval = check_interval

    def status(self, workspace_id):
        return self.verification.status(workspace_id)

    def replaces(self, workspace_id, domain):
        try:
            wanted = normalize_domain(domain)
        except InvalidInput as exc:
            raise _domain_error(exc) from None
        current = self.verification.status(workspace_id)
        return wanted if current is not None and current.domain != wanted else None

    def set_domain(self, workspace_id, domain, account_id):
        before = self.verification.status(workspace_id)
        try:
            status = self.verification.set_domain(workspace_id, domain)
        except InvalidInput as exc:
            raise _domain_error(exc) from None
        if before is None or before.domain != status.domain:
            self.audit.record("domain.set", account_id=account_id, workspace_id=workspace_id,
                              target=status.domain, previous=before.domain if before else None)
        return status

    def check_now(self, workspace_id, account_id):
        if self.verification.status(workspace_id) is None:
            raise FormError("domain", "Enter your domain first: there is nothing to check yet")
        try:
            status = self.verification.check_now(workspace_id, min_interval=self.check_interval)
        except onboarding.CheckRefused as exc:
            raise CheckRefused(_sentence(str(exc)), exc.retry_after) from None
        self.audit.record("domain.checked", account_id=account_id, workspace_id=workspace_id,
                          target=status.domain, result=status.last_result, state=status.state)
        return status


def domain_pages_factory(settings):
    # A member's "Check now" at most this often per workspace (one at a time in any case).
    check_interval = datetime.timedelta(seconds=settings.portal.domain_check_interval_seconds)

    def factory(context, request):
        return DomainPages(request.find_service(IDomainVerification), request.find_service(IPortalAudit),
                           check_interval)

    return factory
