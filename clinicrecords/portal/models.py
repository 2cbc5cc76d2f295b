"""Every table of the portal's areas, imported together (clinicrecords.contexts.load_models)."""

from clinicrecords.portal.accounts.models import Account, LoginFailure  # noqa: F401
from clinicrecords.portal.clinic_connections.models import ConnectionRequest  # noqa: F401
from clinicrecords.portal.staff.models import ClinicStaff, StaffInvitation  # noqa: F401
from clinicrecords.portal.terms.models import TermsAcceptance  # noqa: F401
from clinicrecords.portal.web.models import OneTimeRead, PortalAuditEntry, PortalSession  # noqa: F401
from clinicrecords.portal.workspaces.models import Invitation, Member  # noqa: F401
