"""The calling key (/v1/me) and the clinics it reaches (/v1/connections), in their plain shapes."""

from marshmallow import Schema, fields, validate

from clinicrecords.access.permissions import PERMISSION_DESCRIPTIONS
from clinicrecords.api.render import iso


def key_json(key, request):
    """`key` is a `CallingKey`: the identity plus its owner's name."""
    identity = key.identity
    return {
        "key_id": identity.masked_key_id,
        "mode": identity.mode,
        "owner": {"type": "clinic" if identity.clinic_id else "workspace", "id": str(identity.owner_id),
                  "name": key.owner_name},
        "created_at": iso(identity.created_at),
        "expires_at": iso(identity.expires_at),
    }


def connection_json(reached, request):
    """`reached` is a `Reached`: a clinic, the permissions granted on it, and the connection if any."""
    clinic, connection = reached.clinic, reached.connection
    return {
        "clinic_id": str(clinic.id),
        "display_name": clinic.name,
        "kind": clinic.kind,
        "sandbox": clinic.is_sandbox,
        "scopes": sorted(reached.granted),
        "connected_at": iso(connection.connected_at) if connection else None,
        "expires_at": iso(connection.expires_at) if connection else None,
    }


def blocked_json(problem):
    """Why a key reaches no clinic now (GET /v1/connections `blocked`): the refusal a clinic's route answers."""
    if problem is None:
        return None
    return {"code": problem.code, "title": problem.title, "detail": problem.detail}


BLOCKED_SCHEMA = {
    "type": ["object", "null"], "required": ["code", "title", "detail"],
    "description": "Why this key reaches no clinic now, or null. A live organization key of a workspace whose "
                   "verification is absent or has lapsed (`not_verified`), or that is on the sandbox plan or has "
                   "not accepted the API Terms of Use (`workspace_plan_required`): the same code a clinic's "
                   "route answers with (403). Its connections are not listed while it is set.",
    "properties": {"code": {"type": "string", "enum": ["not_verified", "workspace_plan_required"]},
                   "title": {"type": "string"}, "detail": {"type": "string"}},
}


class OwnerOut(Schema):
    type = fields.String(validate=validate.OneOf(("clinic", "workspace")))
    id = fields.UUID()
    name = fields.String()


class KeyOut(Schema):
    """The calling key: never its secret, only the masked key id."""

    key_id = fields.String(metadata={"example": "ehr_live_3f9a************"})
    mode = fields.String(validate=validate.OneOf(("live", "test")))
    owner = fields.Nested(OwnerOut)
    created_at = fields.DateTime()
    expires_at = fields.DateTime(allow_none=True)


class ConnectionOut(Schema):
    """A clinic the key reaches now. A clinic key's own clinic and a test key's sandbox have no connection:
    `connected_at` and `expires_at` are null."""

    clinic_id = fields.UUID()
    display_name = fields.String()
    kind = fields.String(validate=validate.OneOf(("clinic", "pharmacy")))
    sandbox = fields.Boolean()
    scopes = fields.List(fields.String(validate=validate.OneOf(sorted(PERMISSION_DESCRIPTIONS))), metadata={
        "description": "The permissions the clinic granted this key, each of:\n\n" + "\n".join(
            f"- `{name}`: {text}" for name, text in sorted(PERMISSION_DESCRIPTIONS.items()))})
    connected_at = fields.DateTime(allow_none=True)
    expires_at = fields.DateTime(allow_none=True)
