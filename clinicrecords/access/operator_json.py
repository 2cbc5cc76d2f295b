"""What the operator CLI prints about workspaces, keys and connections: never a secret or its hash."""


from clinicrecords.access.keys import masked
from clinicrecords.api.render import iso
from clinicrecords.clock import now as clock_now


def status(revoked_at, expires_at):
    if revoked_at is not None:
        return "revoked"
    if expires_at is not None and expires_at <= clock_now():
        return "expired"
    return "active"


def workspace_json(workspace, terms_accepted):
    return {"workspace_id": str(workspace.id), "name": workspace.name, "verified": workspace.verified,
            "plan": workspace.plan, "terms_accepted": terms_accepted,
            "sandbox_clinic_id": str(workspace.sandbox_clinic_id), "created_at": iso(workspace.created_at)}


def key_json(key):
    # key_id is public (it cannot authenticate) and is what `key revoke` and `audit list --key` take;
    # `masked` is the form a partner sees in GET /v1/me.
    owner = {"type": "clinic", "id": str(key.clinic_id)} if key.clinic_id else {
        "type": "workspace", "id": str(key.workspace_id)}
    return {"key_id": key.key_id, "masked": masked(key.mode, key.key_id), "name": key.name, "mode": key.mode,
            "owner": owner,
            "scopes": key.scopes, "ip_allow": key.ip_allow, "rate_limit": key.rate_limit,
            "status": status(key.revoked_at, key.expires_at), "expires_at": iso(key.expires_at),
            "revoked_at": iso(key.revoked_at), "created_at": iso(key.created_at),
            "last_used_at": iso(key.last_used_at)}


def connection_json(connection):
    return {"connection_id": str(connection.id), "workspace_id": str(connection.workspace_id),
            "clinic_id": str(connection.clinic_id), "scopes": connection.scopes,
            "status": status(connection.revoked_at, connection.expires_at),
            "connected_at": iso(connection.connected_at), "expires_at": iso(connection.expires_at),
            "revoked_at": iso(connection.revoked_at)}


def revocation_json(revocation):
    """The same shape for keys and connections; revoking again exits 0 with the first revocation's time."""
    return {"revoked": True, "already_revoked": revocation.already_revoked,
            "revoked_at": iso(revocation.record.revoked_at)}
