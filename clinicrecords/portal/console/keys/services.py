"""The clinic's own keys in the console (decision 0033). The developer portal's `KeyService` does the work
(revoke, roll with an overlap, IP allow-list, the audit rows naming keys by their masked id); this class
changes only whose keys they are: a clinic's, always live, with no live-key gate (the clinic is the data's
owner), audited with the clinic."""

from zope.interface import implementer_only

from clinicrecords.access import services as access
from clinicrecords.access.interfaces import masked
from clinicrecords.portal.console.keys.interfaces import IClinicKeyService
from clinicrecords.portal.developer.keys.services import KeyService, all_checked, audit_details, key_name, parse_cidrs
from clinicrecords.portal.web.interfaces import IPortalAudit


class ClinicAudit:
    """The portal audit trail, with the owner id `KeyService` passes recorded as the clinic."""

    def __init__(self, audit):
        self.audit = audit

    def record(self, action, *, account_id, workspace_id=None, **details):
        self.audit.record(action, account_id=account_id, clinic_id=workspace_id, **details)


@implementer_only(IClinicKeyService)
class ClinicKeyService(KeyService):
    def __init__(self, db, pepper, audit):
        super().__init__(db, pepper, gate=None, audit=ClinicAudit(audit))

    def keys(self, clinic_id):
        """The clinic's unrevoked keys, newest first."""
        return sorted((key for key in access.list_keys(self.db,
                                                       clinic_id=clinic_id) if key.revoked_at is None),
                      key=lambda key: key.created_at, reverse=True)

    def key(self, clinic_id, key_id):
        return next((key for key in self.keys(clinic_id) if key.key_id == key_id), None)

    def create(self, clinic_id, ip_allow_text, account_id, name_text=""):
        """(ApiKey, full key): always live, with every permission."""
        name, cidrs = all_checked(lambda: key_name(name_text), lambda: parse_cidrs(ip_allow_text))
        key, full_key = access.create_key(self.db, self.pepper, clinic_id=clinic_id, ip_allow=cidrs, name=name)
        self.audit.record("key.created", account_id=account_id, workspace_id=clinic_id,
                          target=masked(key.mode, key.key_id), mode=key.mode, **audit_details(key))
        return key, full_key


def clinic_key_service_factory(settings):
    pepper = settings.secrets.key_pepper

    def factory(context, request):
        return ClinicKeyService(request.db, pepper, request.find_service(IPortalAudit))

    return factory
