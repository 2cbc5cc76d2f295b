"""The API Terms: versioned texts shipped in the package (identity/terms_texts/<version>.txt). The current
version is `portal.terms_version` (default CURRENT_VERSION). An acceptance is recorded once, in
`terms_acceptances`: by a member in the portal (their account), or by an operator for an acceptance made
outside it (a name and a reference). A new version must be accepted before the workspace creates new live keys
(the portal's live-key checklist); keys that exist keep working: the API's reach reads whether the workspace
has accepted the terms at all, from that same record (`terms_accepted`, a subquery the key's statement
composes)."""

from importlib.resources import files

from sqlalchemy import exists, select
from zope.interface import implementer

from clinicrecords.errors import InvalidInput
from clinicrecords.identity.interfaces import IAuditTrail, ITermsService
from clinicrecords.identity.models import TermsAcceptance

CURRENT_VERSION = "2026-01"
OPERATOR = "operator"


def terms_text(version):
    path = files("clinicrecords.identity").joinpath(f"terms_texts/{version}.txt")
    if not path.is_file():
        raise InvalidInput(f"no API Terms version {version}")
    return path.read_text()


def current_terms_version(settings):
    """The version in force: `portal.terms_version`, unset the newest text. `settings`: the application's."""
    return settings.portal.terms_version or CURRENT_VERSION


def terms_accepted(workspace_id_column):
    """A boolean SQL expression: the workspace (`workspace_id_column`) has accepted a version of the API
    Terms. The API key's statement (access) selects it, so the key and its reach stay one statement."""
    return exists().where(TermsAcceptance.workspace_id == workspace_id_column)


def has_accepted_terms(db, workspace_id):
    return db.scalar(select(terms_accepted(workspace_id)))


def record_terms_acceptance(db, workspace_id, version, accepted_by=OPERATOR, reference=None):
    """An acceptance an operator records (`workspace create|set --terms-accepted`): of `version`, by
    `accepted_by` (a name), with `reference`. A version the workspace accepted already is not recorded again:
    the first acceptance is returned."""
    terms_text(version)
    found = db.scalar(select(TermsAcceptance).where(TermsAcceptance.workspace_id == workspace_id,
                                                    TermsAcceptance.version == version)
                      .order_by(TermsAcceptance.accepted_at).limit(1))
    if found is not None:
        return found
    acceptance = TermsAcceptance(workspace_id=workspace_id, version=version, accepted_by_name=accepted_by,
                                 reference=reference)
    db.add(acceptance)
    db.flush()
    return acceptance


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

    def record(self, workspace_id, version, accepted_by, reference):
        """An acceptance made outside the portal (a signed agreement), as an operator records it: of `version`
        (one this service ships), by `accepted_by` (a person's name), with `reference` (where it is kept).
        Audited as the operator's."""
        accepted_by, reference = (accepted_by or "").strip(), (reference or "").strip()
        if not accepted_by or len(accepted_by) > 200 or "\n" in accepted_by:
            raise InvalidInput("--accepted-by must be one line of 1 to 200 characters: who accepted")
        if not reference or len(reference) > 500 or "\n" in reference:
            raise InvalidInput("--reference must be one line of 1 to 500 characters: where the agreement is kept")
        terms_text(version)
        acceptance = TermsAcceptance(workspace_id=workspace_id, version=version, accepted_by_name=accepted_by,
                                     reference=reference)
        self.db.add(acceptance)
        self.audit.record("terms.recorded", account_id=None, workspace_id=workspace_id, target=version,
                          accepted_by=accepted_by, reference=reference)
        self.db.flush()
        self.db.refresh(acceptance)
        return acceptance

    def accept(self, workspace_id, account_id, version):
        """`version` is the one the member read (the form says which): accepting an outdated page fails."""
        if version != self.current_version:
            raise InvalidInput("These terms have changed since the page was shown: read the current version")
        if self.accepted_current(workspace_id):
            return self.latest(workspace_id)
        acceptance = TermsAcceptance(workspace_id=workspace_id, version=version, account_id=account_id)
        self.db.add(acceptance)
        self.audit.record("terms.accepted", account_id=account_id, workspace_id=workspace_id, target=version)
        self.db.flush()
        return acceptance


def terms_service_factory(settings):
    version = current_terms_version(settings)
    terms_text(version)  # a configured version without its text stops start-up

    def factory(context, request):
        return TermsService(request.db, request.find_service(IAuditTrail), version)

    return factory
