"""A workspace's keys, as its members manage them in the portal. The secret of a new key is returned once, to
the page that answers its creation; the audit trail names keys by their public id only."""

import datetime
import ipaddress
from zope.interface import implementer

from clinicrecords.access import services as access
from clinicrecords.access.interfaces import ALL_PERMISSIONS, ILiveKeyGate, key_label, masked
from clinicrecords.portal.developer.keys.gate import needs_sentence
from clinicrecords.portal.developer.keys.interfaces import IKeyService
from clinicrecords.portal.web.forms import FormError
from clinicrecords.portal.web.interfaces import IPortalAudit

OVERLAPS = {
    "now": datetime.timedelta(0),
    "1h": datetime.timedelta(hours=1),
    "24h": datetime.timedelta(hours=24),
    "7d": datetime.timedelta(days=7),
}
MAX_CIDRS = 50
# What a restricted key may be narrowed to: the permissions a clinic can grant a workspace.
GRANTABLE = frozenset(ALL_PERMISSIONS)


def parse_cidrs(text):
    """Addresses or CIDR ranges, one per line or comma-separated → normalized CIDRs; FormError naming every bad
    entry (with its line, when there are several)."""
    entries = [(number, part.strip()) for number, line in enumerate((text or "").splitlines(), 1)
               for part in line.split(",") if part.strip()]
    if len(entries) > MAX_CIDRS:
        raise FormError("ip_allow", f"Enter at most {MAX_CIDRS} addresses or ranges")
    cidrs, bad = [], []
    for number, entry in entries:
        try:
            network = ipaddress.ip_network(entry, strict=False)
        except ValueError:
            bad.append((number, entry))
            continue
        if str(network) not in cidrs:
            cidrs.append(str(network))
    if len(bad) == 1:
        raise FormError("ip_allow", f"“{bad[0][1][:60]}” is not an IP address or CIDR range, like 203.0.113.0/24")
    if bad:
        raise FormError("ip_allow", f"{len(bad)} entries are not IP addresses or CIDR ranges, like 203.0.113.0/24: "
                        + ", ".join(f"“{entry[:60]}” (line {number})" for number, entry in bad))
    return cidrs


def _sentence(message):
    return message[:1].upper() + message[1:]


def key_name(text):
    """The optional name typed for a key, as access keeps it; FormError by the name field."""
    try:
        return access.key_name(text)
    except access.AccessError as exc:
        raise FormError("name", _sentence(str(exc))) from None


def restriction(access_choice, ticked):
    """A new workspace key's permissions: None (every permission the workspace is granted), or the ticked ones
    for a restricted key, as Stripe's restricted keys are (the CLI's `--scopes`)."""
    if access_choice in ("", "all"):  # the default (a form from before restricted keys sends none)
        return None
    if access_choice != "restricted":
        raise FormError("access", "Choose every permission or a restricted key")
    scopes = set(ticked)
    if not scopes:
        raise FormError("scopes", "Tick at least one permission for a restricted key")
    if scopes - GRANTABLE:
        raise FormError("scopes", "Choose among the permissions listed")
    return sorted(scopes)


def all_checked(*checks):
    """Run each check (a callable); every FormError they raise, together. Returns their results."""
    results, errors = [], {}
    for check in checks:
        try:
            results.append(check())
        except FormError as exc:
            errors.update((field, message) for field, message in exc.errors.items() if field not in errors)
            results.append(None)
    if errors:
        raise FormError(errors=errors)
    return results


@implementer(IKeyService)
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

    def _gate_for(self, account_id):
        """The gate as this member acting in the portal meets it (a clinic's keys have no gate)."""
        return None if self.gate is None else self.gate.acting(account_id)

    def rolled(self, keys):
        """Which of these keys were rolled already (their ids): a key is rolled once."""
        return access.rolled_key_ids(self.db, [key.id for key in keys])

    def create(self, workspace_id, mode, ip_allow_text, account_id, name_text="", access_choice="all", ticked=()):
        """(ApiKey, full key). Every field's problem at once; a live key only when the gate is open (the page
        names what is missing). `access_choice` "restricted" narrows the key to the `ticked` permissions."""
        def valid_mode():
            if mode not in ("test", "live"):
                raise FormError("mode", "Choose test or live")

        _, name, scopes, cidrs = all_checked(valid_mode, lambda: key_name(name_text),
                                             lambda: restriction(access_choice, ticked),
                                             lambda: parse_cidrs(ip_allow_text))
        if mode == "live":
            missing = self._gate_for(account_id).missing(workspace_id)
            if missing:
                raise FormError("mode", f"A live key needs {needs_sentence(missing)}")
        key, full_key = access.create_key(self.db, self.pepper, workspace_id=workspace_id, mode=mode, ip_allow=cidrs,
                                          name=name, scopes=scopes)
        self.audit.record("key.created", account_id=account_id, workspace_id=workspace_id,
                          target=masked(key.mode, key.key_id), mode=mode, **audit_details(key))
        return key, full_key

    def revoke(self, workspace_id, key, account_id):
        access.revoke_key(self.db, key.key_id)
        self.audit.record("key.revoked", account_id=account_id, workspace_id=workspace_id,
                          target=masked(key.mode, key.key_id))

    def roll(self, workspace_id, key, overlap_choice, account_id):
        """(new ApiKey, full key). access.roll_key holds the rule: a key is rolled once, and rolling a workspace's
        live key passes the live-key gate (a clinic's own key has none)."""
        overlap = OVERLAPS.get(overlap_choice)
        if overlap is None:
            raise FormError("overlap", "Choose when the old key stops working")
        old_expires = key.expires_at
        try:
            new, full_key = access.roll_key(self.db, self.pepper, key, overlap, self._gate_for(account_id))
        except access.KeyAlreadyRolled as exc:
            raise FormError("overlap", already_rolled(exc.successor)) from None
        except access.LiveKeyRefused as exc:
            raise FormError("overlap", f"Rolling makes a new live key, and a live key needs "
                                       f"{needs_sentence(exc.missing)}") from None
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


def already_rolled(successor):
    if successor is None:
        return "This key was rolled already (and the key that replaced it is revoked): create a new key instead"
    return f"This key was rolled already: roll the key that replaced it, {key_label(successor)}, instead"


def audit_details(key):
    """What the audit row says of a new key besides its masked id: its name and restriction, if any."""
    return {**({"name": key.name} if key.name else {}), **({"scopes": key.scopes} if key.scopes else {})}


def key_service_factory(settings):
    pepper = settings.secrets.key_pepper

    def factory(context, request):
        return KeyService(request.db, pepper, request.find_service(ILiveKeyGate), request.find_service(IPortalAudit))

    return factory
