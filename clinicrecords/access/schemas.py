"""Answer shapes of /v1/me and /v1/connections (documentation: the OpenAPI document)."""

from marshmallow import RAISE, Schema, fields, validate


class _Out(Schema):
    class Meta:
        unknown = RAISE


class KeyOwnerOut(_Out):
    type = fields.String(required=True, validate=validate.OneOf(("clinic", "workspace")))
    id = fields.UUID(required=True)
    name = fields.String(required=True)


class MeOut(_Out):
    key_id = fields.String(required=True)
    mode = fields.String(required=True, validate=validate.OneOf(("live", "test")))
    owner = fields.Nested(KeyOwnerOut, required=True)
    created_at = fields.DateTime(required=True)
    expires_at = fields.DateTime(required=True, allow_none=True)


class ConnectionOut(_Out):
    clinic_id = fields.UUID(required=True)
    display_name = fields.String(required=True)
    kind = fields.String(required=True)
    sandbox = fields.Boolean(required=True)
    scopes = fields.List(fields.String(), required=True)
    connected_at = fields.DateTime(required=True, allow_none=True)
    expires_at = fields.DateTime(required=True, allow_none=True)
