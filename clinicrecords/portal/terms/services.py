"""The API Terms: versioned texts shipped in the package (terms/texts/<version>.txt). The current version is
`portal.terms_version` (default CURRENT_VERSION). Accepting records the version, the member and the time;
a new version must be accepted before the workspace creates new live keys (clinicrecords.portal.keys.gate).
Keys that exist keep working: the API's reach reads the workspace's `terms_accepted`, set by any acceptance."""

from importlib.resources import files

from sqlalchemy import select
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.errors import InvalidInput
from clinicrecords.portal.terms.interfaces import ITermsService
from clinicrecords.portal.terms.models import TermsAcceptance
from clinicrecords.portal.web.interfaces import IPortalAudit

CURRENT_VERSION = "2026-01"


def terms_text(version):
    path = files("clinicrecords.portal.terms").joinpath(f"texts/{version}.txt")
    if not path.is_file():
        raise InvalidInput(f"no API Terms version {version}")
    return path.read_text()


@implementer(ITermsService)
class TermsService:
    def __init__(self, db, audit, current_version=CURRENT_VERSION):
        self.db = db
        self.audit = audit
        self.current_version = current_version

    def text(self, version=None):
        return terms_text(version or self.current_version)

    def latest(self, workspace_id):
        return self.db.scalar(select(TermsAcceptance).where(TermsAcceptance.workspace_id == workspace_id)
                              .order_by(TermsAcceptance.accepted_at.desc()).limit(1))

    def accepted_current(self, workspace_id):
        return self.db.scalar(select(TermsAcceptance.id).where(
            TermsAcceptance.workspace_id == workspace_id,
            TermsAcceptance.version == self.current_version).limit(1)) is not None

    def accept(self, workspace_id, account_id, version):
        """`version` is the one the member read (the form says which): accepting an outdated page fails."""
        if version != self.current_version:
            raise InvalidInput("These terms have changed since the page was shown: read the current version")
        if self.accepted_current(workspace_id):
            return self.latest(workspace_id)
        acceptance = TermsAcceptance(workspace_id=workspace_id, version=version, account_id=account_id)
        self.db.add(acceptance)
        access.set_workspace(self.db, workspace_id, terms_accepted=True)
        self.audit.record("terms.accepted", account_id=account_id, workspace_id=workspace_id, target=version)
        self.db.flush()
        return acceptance


def terms_service_factory(settings):
    version = settings.portal.terms_version or CURRENT_VERSION  # unset: the newest text
    terms_text(version)  # a configured version without its text stops start-up

    def factory(context, request):
        return TermsService(request.db, request.find_service(IPortalAudit), version)

    return factory
