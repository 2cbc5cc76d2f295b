"""Workspaces, keys and connections: what operators create for partners (never through the API), as other contexts
and the operator CLI call it. Each job has a module of its own: `workspaces` (and what keys and connections
share), `key_records`, `connections`, `names`; this one names what they offer: with the entry (`enter`: the test
helpers' sandbox clinic is entered as /v1/clinics/{clinic_id} is), the permission map's check for the portal's
policy (`holds`) and its row rules, which the patients and clinical contexts apply to their own tables
(`shown_to_keys`, `sent_by`), and a key read back as the API reads it (`authenticate`, for the sandbox's demo
command).
"""

from clinicrecords.access.connections import (active_connections, current_connection_at, grant_connection,
                                              list_connections, narrow_again, revoke_connection,
                                              workspace_connections)
from clinicrecords.access.entry import enter
from clinicrecords.access.identity import authenticate
from clinicrecords.access.permission_map import holds, reach_of_helpers, sent_by, shown_to_keys
from clinicrecords.access.key_records import (MAX_KEY_NAME, KeyAlreadyRolled, LiveKeyRefused, create_key,
                                              key_by_key_id, key_name, list_keys, revoke_key, roll_key,
                                              rolled_key_ids, set_key_ip_allow, validate_cidrs, workspace_key,
                                              workspace_keys, workspace_of_key)
from clinicrecords.access.names import DisplayNames, KeyName, display_names
from clinicrecords.access.workspaces import (AccessError, Closing, Revocation, close_workspace, create_workspace,
                                             get_clinic, get_workspace, list_workspaces, open_workspace,
                                             set_workspace, workspace_is_verified)

__all__ = [
    "AccessError", "Closing", "close_workspace", "open_workspace",
    "DisplayNames", "KeyAlreadyRolled", "KeyName", "LiveKeyRefused", "MAX_KEY_NAME", "Revocation",
    "active_connections", "authenticate", "create_key", "create_workspace", "current_connection_at",
    "display_names", "enter", "get_clinic", "get_workspace", "grant_connection", "holds", "key_by_key_id",
    "key_name", "list_connections", "list_keys", "list_workspaces", "narrow_again", "reach_of_helpers",
    "revoke_connection",
    "revoke_key", "roll_key", "rolled_key_ids", "sent_by", "set_key_ip_allow", "set_workspace", "shown_to_keys",
    "validate_cidrs", "workspace_connections", "workspace_is_verified", "workspace_key", "workspace_keys",
    "workspace_of_key"
]
