"""The developer portal: a server-rendered web application where partners onboard themselves (accounts,
workspaces, keys, webhooks, API Terms, plan and usage, connections, domain verification, business profile,
request log) and the clinic console of clinics' staff (staff, review queue, who read what, the clinic's key,
automatic acceptance, connections, webhooks). A separate surface of the same application with its own security
policy; see docs/portal.md. Each area is a sub-package whose name is its URL's first part."""

from clinicrecords.access.interfaces import describe_permission
from clinicrecords.portal.web import add_template_filter

AREAS = (
    ".accounts",
    ".workspaces",
    ".keys",
    ".terms",
    ".plan",
    ".connections",
    ".domain",
    ".profile",
    ".requests",
    ".staff",
    ".webhooks",
    ".queue",
    ".access_report",
    ".clinic_keys",
    ".auto_accept",
    ".clinic_connections",
)


def includeme(config):
    config.include(".web")
    # Both faces name permissions (asking, deciding, the connections tables) in the words the API's reference uses.
    add_template_filter(config, "permission_words", describe_permission)
    for area in AREAS:
        config.include(area)
