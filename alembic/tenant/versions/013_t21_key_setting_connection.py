"""auto_accept_settings.connected_at for the settings of organization keys: a new connection starts them off

Revision ID: t21_key_setting_connection
Revises: t20_auto_accept_switched_on

Data only. A key's own setting now holds the `connected_at` of its workspace's connection, as a workspace
setting does, and applies only while that connection is the one in force (docs/decisions/0052-automatic-acceptance-new-connection.md). Settings of organization
keys made before held none: each is given the `connected_at` of the connection in force now when it was last
switched on during that connection, so it keeps applying exactly as before; one switched on before the
connection was last renewed stays without, and so applies to nothing (what a new connection means). Settings
of a clinic's own keys, and on a sandbox, need none. The clinic is this schema's: `clinic_<hex of its id>`.
"""

from alembic import op

revision = 't21_key_setting_connection'
down_revision = 't20_auto_accept_switched_on'
branch_labels = None
depends_on = None


def upgrade():
    op.execute("""
        UPDATE auto_accept_settings AS setting SET connected_at = connection.connected_at
        FROM control.api_keys AS key
        JOIN control.connections AS connection ON connection.workspace_id = key.workspace_id
        WHERE setting.sender_type = 'key' AND setting.connected_at IS NULL AND key.id = setting.sender_id
          AND connection.clinic_id = CAST(substr(current_schema(), length('clinic_') + 1) AS uuid)
          AND connection.revoked_at IS NULL
          AND coalesce(setting.switched_on_at, setting.updated_at) >= connection.connected_at
    """)


def downgrade():
    # The code before this revision ignores a key setting's connected_at: nothing to undo.
    pass
