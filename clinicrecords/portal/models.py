"""Every table of the portal's own areas, imported together (clinicrecords.contexts.load_models). The people,
their memberships, sessions and terms acceptances are the identity context's (clinicrecords.identity.models)."""

from clinicrecords.portal.clinic_connections.models import ConnectionRequest  # noqa: F401
from clinicrecords.portal.web.models import OneTimeRead, PortalAuditEntry  # noqa: F401
