from zope.interface import Interface


class IDomainPages(Interface):
    """The domain as a workspace's members see and change it: onboarding's verification, audited."""

    def status(workspace_id):
        """onboarding's `DomainStatus`, or None before a domain is entered."""

    def replaces(workspace_id, domain):
        """The normalized domain when it would replace a different one (the page asks to confirm), else None.
        Raises FormError on a name that is not a domain."""

    def set_domain(workspace_id, domain, account_id):
        """Claim the domain (audited as domain.set); FormError on bad input, nothing written."""

    def check_now(workspace_id, account_id):
        """Look the record up at once and restart the schedule (audited as domain.checked). Raises FormError
        before a domain is entered, and `CheckRefused` (a FormError with `retry_after`) at once while another
        check of the workspace runs or within `portal.domain_check_interval_seconds` of the last one."""
