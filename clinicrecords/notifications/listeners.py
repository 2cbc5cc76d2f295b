"""What the notifications do when another context tells of a moment (`clinicrecords.publishing`): find the
people to tell through the identity context, and mail those who want it. The emitting contexts know nothing
of people or mail."""

import datetime

from clinicrecords.access.interfaces import ConnectionChanged, ConnectionRequested, describe_permission
from clinicrecords.access.services import get_workspace
from clinicrecords.clinics.services import clinic_names
from clinicrecords.events.interfaces import EndpointDisabled, EndpointFailing
from clinicrecords.notifications import kinds
from clinicrecords.notifications.recipients import ADMIN, clinic_staff_in_role, workspace_owners
from clinicrecords.notifications.sending import clinic_regarding, notify, workspace_regarding
from clinicrecords.onboarding.interfaces import DomainLapsed, ProfileReviewed
from clinicrecords.publishing import listen


def _workspace_name(db, workspace_id):
    return get_workspace(db, workspace_id).name


def _clinic_name(db, clinic_id):
    return clinic_names(db, {clinic_id})[clinic_id]


def connection_requested(event, place):
    db = place.db
    clinic, workspace = _clinic_name(db, event.clinic_id), _workspace_name(db, event.workspace_id)
    notify(place, kinds.CONNECTION_REQUESTED, clinic_staff_in_role(db, event.clinic_id, ADMIN),
           "connection_requested", clinic_regarding(clinic), f"/clinics/{event.clinic_id}/connections",
           clinic=clinic, workspace=workspace, permissions=[describe_permission(scope) for scope in event.scopes])


def connection_changed(event, place):
    db = place.db
    clinic, workspace = _clinic_name(db, event.clinic_id), _workspace_name(db, event.workspace_id)
    notify(place, kinds.CONNECTION_CHANGED, workspace_owners(db, event.workspace_id), "connection_changed",
           workspace_regarding(workspace), f"/workspaces/{event.workspace_id}/connections", clinic=clinic,
           workspace=workspace, change=event.change,
           permissions=[describe_permission(scope) for scope in event.scopes], ends=_ends(event.expires_at))


def _ends(expires_at):
    """When a connection ends by itself, in words and in UTC (the partner's API speaks UTC), or None."""
    if expires_at is None:
        return None
    moment = expires_at.astimezone(datetime.UTC)
    return f"{moment.day} {moment.strftime('%B %Y')} at {moment.strftime('%H:%M')} UTC"


def profile_reviewed(event, place):
    workspace = _workspace_name(place.db, event.workspace_id)
    notify(place, kinds.PROFILE_REVIEWED, workspace_owners(place.db, event.workspace_id), "profile_reviewed",
           workspace_regarding(workspace), f"/workspaces/{event.workspace_id}/profile", workspace=workspace,
           approved=event.approved)


def domain_lapsed(event, place):
    workspace = _workspace_name(place.db, event.workspace_id)
    notify(place, kinds.DOMAIN_LAPSED, workspace_owners(place.db, event.workspace_id), "domain_lapsed",
           workspace_regarding(workspace), f"/workspaces/{event.workspace_id}/domain", workspace=workspace,
           domain=event.domain)


def _endpoint_trouble(kind, template):
    def listener(event, place):
        db = place.db
        if event.workspace_id is not None:
            owner = _workspace_name(db, event.workspace_id)
            people, regarding = workspace_owners(db, event.workspace_id), workspace_regarding(owner)
            page_path = f"/workspaces/{event.workspace_id}/webhooks/{event.endpoint_id}"
        else:
            owner = _clinic_name(db, event.clinic_id)
            people, regarding = clinic_staff_in_role(db, event.clinic_id, ADMIN), clinic_regarding(owner)
            page_path = f"/clinics/{event.clinic_id}/webhooks/{event.endpoint_id}"
        notify(place, kind, people, template, regarding, page_path, owner=owner, host=event.host, mode=event.mode,
               error=event.error)

    return listener


def listen_to_moments(config):
    listen(config, ConnectionRequested, connection_requested)
    listen(config, ConnectionChanged, connection_changed)
    listen(config, ProfileReviewed, profile_reviewed)
    listen(config, DomainLapsed, domain_lapsed)
    listen(config, EndpointFailing, _endpoint_trouble(kinds.WEBHOOK_FAILING, "webhook_failing"))
    listen(config, EndpointDisabled, _endpoint_trouble(kinds.WEBHOOK_DISABLED, "webhook_disabled"))
