"""Builds clinics, workspaces, keys and connections through the same services the operator CLI uses."""

import contextlib

import transaction
from pyramid.scripting import prepare

from clinicrecords.access import services
from clinicrecords.access.interfaces import ALL_PERMISSIONS
from clinicrecords.clinics.services import create_clinic
from clinicrecords.sandbox import seed_sandbox


class World:
    def __init__(self, registry):
        self.registry = registry
        self.pepper = registry.settings["secrets.key_pepper"]

    @contextlib.contextmanager
    def request(self):
        """An operator's request with its own committed transaction, as the CLI runs it."""
        env = prepare(registry=self.registry)
        request = env["request"]
        request.tm = transaction.TransactionManager(explicit=True)
        try:
            with request.tm:
                yield request
        finally:
            env["closer"]()

    @contextlib.contextmanager
    def db(self):
        with self.request() as request:
            yield request.db

    def clinic(self, name="Test Clinic", seed=False, **kwargs):
        with self.request() as request:
            clinic = create_clinic(request.db, name, **kwargs)
            if seed:
                seed_sandbox(request, clinic)
            return clinic.id

    def workspace(self, name="Test Workspace", verified=True, paid=True, terms_accepted=True):
        """Returns (workspace_id, sandbox_clinic_id)."""
        with self.request() as request:
            workspace = services.create_workspace(
                request.db, name, verified=verified, paid=paid, terms_accepted=terms_accepted,
                seed=lambda db, clinic: seed_sandbox(request, clinic),
            )
            return workspace.id, workspace.sandbox_clinic_id

    def ready_for_live(self, workspace_id):
        """What a new live key needs besides verification and the paid plan: the business profile approved and
        the current API Terms accepted (recorded as by an operator). The workspace must be verified."""
        self.approve_profile(workspace_id)
        self.accept_terms(workspace_id)

    def approve_profile(self, workspace_id):
        """Submitted (the workspace must be verified) and approved, as the operator CLI does."""
        from clinicrecords.onboarding.interfaces import IBusinessProfile

        with self.request() as request:
            profiles = request.find_service(IBusinessProfile)
            profiles.submit(workspace_id, legal_name="Acme Health Ltd", website="https://acme.example",
                            country="GB", contact_email="dev@acme.example",
                            intended_use="Appointment reminders for our clinics.")
            profiles.review(workspace_id, approve=True)

    def accept_terms(self, workspace_id):
        """Recorded as an operator records an acceptance made outside the portal."""
        from clinicrecords.identity.services import ITermsService, record_terms_acceptance

        with self.request() as request:
            record_terms_acceptance(request.db, workspace_id, request.find_service(ITermsService).current_version)

    def key(self, **kwargs):
        """The full key string."""
        with self.db() as db:
            return services.create_key(db, self.pepper, **kwargs)[1]

    def key_row(self, **kwargs):
        with self.db() as db:
            key, full_key = services.create_key(db, self.pepper, **kwargs)
            return key.key_id, full_key

    def grant(self, workspace_id, clinic_id, scopes=ALL_PERMISSIONS, **kwargs):
        with self.db() as db:
            return services.grant_connection(db, workspace_id, clinic_id, scopes, **kwargs).id

    def revoke_connection(self, workspace_id, clinic_id):
        with self.db() as db:
            services.revoke_connection(db, workspace_id, clinic_id)

    def revoke_key(self, key_id):
        with self.db() as db:
            services.revoke_key(db, key_id)

    def set_workspace(self, workspace_id, **kwargs):
        with self.db() as db:
            services.set_workspace(db, workspace_id, **kwargs)

    def webhook(self, clinic_id=None, workspace_id=None, mode=None, url="http://127.0.0.1:9/webhook",
                types=None):
        """Register a webhook endpoint, which also switches event recording on for the clinics it reaches
        (spec Events rule 5). Returns (endpoint_id, secret). The default URL refuses connections at once."""
        from clinicrecords.events.settings import webhook_settings
        from clinicrecords.events.webhooks import add_endpoint

        if workspace_id is not None and mode is None:
            mode = "live"
        with self.request() as request:
            endpoint, secret = add_endpoint(request.db, webhook_settings(self.registry), url, clinic_id=clinic_id,
                                            workspace_id=workspace_id, mode=mode, event_types=types)
            return endpoint.id, secret

    def connected(self, scopes=ALL_PERMISSIONS, **workspace_flags):
        """A real clinic, a workspace connected to it, and a live key of that workspace."""
        clinic_id = self.clinic()
        workspace_id, sandbox_id = self.workspace(**workspace_flags)
        self.grant(workspace_id, clinic_id, scopes)
        key = self.key(workspace_id=workspace_id, mode="live")
        return Connected(clinic_id, workspace_id, sandbox_id, key)


class Connected:
    def __init__(self, clinic_id, workspace_id, sandbox_clinic_id, key):
        self.clinic_id = clinic_id
        self.workspace_id = workspace_id
        self.sandbox_clinic_id = sandbox_clinic_id
        self.key = key

    @property
    def headers(self):
        return {"Authorization": f"Bearer {self.key}"}
