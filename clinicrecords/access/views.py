from pyramid.view import view_config

from clinicrecords.access.resources import KEY_HOLDER, Connections, Me
from clinicrecords.access.schemas import ConnectionOut, MeOut
from clinicrecords.api.render import iso


def _owner(request, identity):
    from clinicrecords.access.models import Workspace
    from clinicrecords.clinics.models import Clinic

    if identity.clinic_id is not None:
        return {"type": "clinic", "id": str(identity.clinic_id),
                "name": request.db.get(Clinic, identity.clinic_id).name}
    return {"type": "workspace", "id": str(identity.workspace_id),
            "name": request.db.get(Workspace, identity.workspace_id).name}


@view_config(context=Me, request_method="GET", permission=KEY_HOLDER, renderer="json",
             openapi={"summary": "Identify the calling key", "schema": MeOut})
def me(context, request):
    identity = request.identity
    return {"data": {
        "key_id": identity.masked_key_id,
        "mode": identity.mode,
        "owner": _owner(request, identity),
        "created_at": iso(identity.created_at),
        "expires_at": iso(identity.expires_at),
    }}


@view_config(context=Connections, request_method="GET", permission=KEY_HOLDER, renderer="json",
             openapi={"summary": "List the clinics this key reaches", "schema": ConnectionOut, "many": True})
def connections(context, request):
    reach = request.find_service(name="reach")
    entries = []
    for clinic, granted, connection in reach.reachable(request.identity):
        entries.append({
            "clinic_id": str(clinic.id),
            "display_name": clinic.name,
            "kind": clinic.kind,
            "sandbox": clinic.is_sandbox,
            "scopes": sorted(granted),
            "connected_at": iso(connection.connected_at) if connection else None,
            "expires_at": iso(connection.expires_at) if connection else None,
        })
    return {"data": entries, "has_more": False, "next_cursor": None}
