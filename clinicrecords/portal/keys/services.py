"""A workspace's keys, as its members manage them in the portal. The secret of a new key is returned once, to
the page that answers its creation; the audit trail names keys by their public id only."""

import datetime
import ipaddress

from clinicrecords.access import services as access
from clinicrecords.access.interfaces import ILiveKeyGate, masked
from clinicrecords.portal.keys.gate import needs_sentence
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit

OVERLAPS = {
    "now": datetime.timedelta(0),
    "1h": datetime.timedelta(hours=1),
    "24h": datetime.timedelta(hours=24),
    "7d": datetime.timedelta(days=7),
}
MAX_CIDRS = 50


def parse_cidrs(text):
    """Addresses or CIDR ranges, one per line or comma-separated → normalized CIDRs; FormError naming the
    first bad entry."""
    entries = [part.strip() for line in (text or "").splitlines() for part in line.split(",") if part.strip()]
    if len(entries) > MAX_CIDRS:
        raise FormError("ip_allow", f"Enter at most {MAX_CIDRS} addresses or ranges")
    cidrs = []
    for entry in entries:
        try:
            network = ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise FormError("ip_allow", f"“{entry[:60]}” is not an IP address or CIDR range, like 203.0.113.0/24") \
                from None
        if str(network) not in cidrs:
            cidrs.append(str(network))
    return cidrs


class KeyService:
    def __init__(self, db, pepper, gate, audit):
        self.db = db
        self.pepper = pepper
        self.gate = gate
        self.audit = audit

    def keys(self, workspace_id):
        return access.workspace_keys(self.db, workspace_id)

    def key(self, workspace_id, key_id):
        return access.workspace_key(self.db, workspace_id, key_id)

    def create(self, workspace_id, mode, ip_allow_text, account_id):
        """(ApiKey, full key). A live key only when the gate is open; the page names what is missing."""
        if mode not in ("test", "live"):
            raise FormError("mode", "Choose test or live")
        cidrs = parse_cidrs(ip_allow_text)
        if mode == "live":
            missing = self.gate.missing(workspace_id)
            if missing:
                raise FormError("mode", f"A live key needs {needs_sentence(missing)}")
        key, full_key = access.create_key(self.db, self.pepper, workspace_id=workspace_id, mode=mode, ip_allow=cidrs)
        self.audit.record("key.created", account_id=account_id, workspace_id=workspace_id,
                          target=masked(key.mode, key.key_id), mode=mode)
        return key, full_key

    def revoke(self, workspace_id, key, account_id):
        access.revoke_key(self.db, key.key_id)
        self.audit.record("key.revoked", account_id=account_id, workspace_id=workspace_id,
                          target=masked(key.mode, key.key_id))

    def roll(self, workspace_id, key, overlap_choice, account_id):
        overlap = OVERLAPS.get(overlap_choice)
        if overlap is None:
            raise FormError("overlap", "Choose when the old key stops working")
        old_expires = key.expires_at
        new, full_key = access.roll_key(self.db, self.pepper, key, overlap)
        self.audit.record("key.rolled", account_id=account_id, workspace_id=workspace_id,
                          target=masked(key.mode, key.key_id), new_key=masked(new.mode, new.key_id),
                          overlap=overlap_choice,
                          old_key_stops=(key.revoked_at or key.expires_at or old_expires).isoformat())
        return new, full_key

    def set_ip_allow(self, workspace_id, key, text, account_id):
        cidrs = parse_cidrs(text)
        access.set_key_ip_allow(self.db, key, cidrs)
        self.audit.record("key.ip_allow_changed", account_id=account_id, workspace_id=workspace_id,
                          target=masked(key.mode, key.key_id), ip_allow=cidrs)
        return key


def key_service_factory(settings):
    pepper = settings["secrets.key_pepper"]

    def factory(context, request):
        return KeyService(request.db, pepper, request.find_service(ILiveKeyGate), request.find_service(IPortalAudit))

    return factory
