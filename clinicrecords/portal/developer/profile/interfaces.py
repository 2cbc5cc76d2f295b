from zope.interface import Interface


class IProfilePages(Interface):
    """The business profile as a workspace's members see and submit it: onboarding's review, audited."""

    def profile(workspace_id):
        """onboarding's `ProfileView`, or None before the first submission."""

    def website_elsewhere(workspace_id, profile):
        """(the website's host, the verified domain) when the profile's website is not on the workspace's
        verified domain, else None: allowed, but the page warns that the reviewer will ask."""

    def submittable(workspace_id):
        """Whether the profile may be submitted now (the workspace's domain is verified)."""

    def submit(workspace_id, fields, account_id):
        """Submit for review (audited as profile.submitted); FormError per field, nothing written."""
