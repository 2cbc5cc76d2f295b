"""The developer portal: a server-rendered web application where partners onboard themselves (accounts,
workspaces, keys, webhooks, API Terms, plan and usage, connections, domain verification, business profile,
request log) and the clinic console of clinics' staff (staff, review queue, who read what, the clinic's key,
automatic acceptance, connections, webhooks). A separate surface of the same application with its own security
policy, and the web layer on the identity context (accounts, sessions, memberships, invitations, terms); see
docs/portal.md.

The layout names the parts: `web` (shared: layout, security policy, the session cookie, CSRF, forms, errors,
one-time reads, the audit trail) and `accounts` (sign-in for both faces); the two faces, `developer` (the
workspace face, rooted at `/workspaces`) and `console` (the clinic face, rooted at `/clinics`), each a package
of areas whose name is its pages' URL segment; and the pages both faces show, written once: `webhooks`,
`clinic_connections` (a workspace asks, a clinic decides)."""

from clinicrecords.access.interfaces import describe_permission
from clinicrecords.portal.web import add_template_filter

# The shared parts (the web foundation first), then the two faces, then the pages both faces show (written
# once, registered on each face).
AREAS = (
    ".accounts",
    ".developer",
    ".console",
    ".webhooks",
    ".clinic_connections",
)


def includeme(config):
    config.include(".web")
    # Both faces name permissions (asking, deciding, the connections tables) in the words the API's reference uses.
    add_template_filter(config, "permission_words", describe_permission)
    for area in AREAS:
        config.include(area)
