"""Identity: the people who sign in to the developer portal and to clinics' consoles (decision 0087) — accounts,
sessions (with re-authentication before sensitive actions and the devices signed in from: decisions 0091, 0092), their
memberships (workspace members: owner or developer; clinic staff: admin and/or clinician), one
invitation service for both, and the record of API Terms acceptance the API's reach reads — and their second
factors (decision 0086: an authenticator app, passkeys, recovery codes, the second step of signing in, the workspace
rule that requires them) with their building blocks (TOTP, the enrolment QR code, recovery codes, breached
passwords, WebAuthn ceremonies). The portal is the web layer on it.

Other contexts import it through `identity.services` and `identity.interfaces` only (.importlinter); it
imports no context but `clinics` (a clinic invitation names a real clinic)."""

from clinicrecords.identity.accounts import account_service_factory
from clinicrecords.identity.devices import known_devices_factory
from clinicrecords.identity.interfaces import (IAccountService, IInvitationService, IKnownDevices,
                                               IMembershipService, IReauthentication, IRecoveryService,
                                               ISessionService, ISignInSteps, ITeamService, ITermsService)
from clinicrecords.identity.invitations import invitation_service_factory
from clinicrecords.identity.memberships import membership_service_factory
from clinicrecords.identity.recovery import recovery_service_factory
from clinicrecords.identity.reauth import (PASSWORD, add_reauth_method, password_verifier_factory,
                                          reauthentication_factory)
from clinicrecords.identity.second_step import sign_in_steps_factory
from clinicrecords.identity.sessions import SESSION_RULES, SessionRules, session_service_factory
from clinicrecords.identity.team import team_service_factory
from clinicrecords.identity.terms import terms_service_factory
from clinicrecords.settings import app_settings


def includeme(config):
    settings = app_settings(config.registry)
    config.register_service_factory(account_service_factory(settings), iface=IAccountService)
    config.register_service_factory(recovery_service_factory(settings), iface=IRecoveryService)
    config.registry[SESSION_RULES] = SessionRules.from_settings(settings.portal)
    config.register_service_factory(session_service_factory, iface=ISessionService)
    config.register_service_factory(reauthentication_factory, iface=IReauthentication)
    add_reauth_method(config, PASSWORD, password_verifier_factory(settings))
    config.register_service_factory(known_devices_factory, iface=IKnownDevices)
    config.register_service_factory(membership_service_factory, iface=IMembershipService)
    config.register_service_factory(invitation_service_factory, iface=IInvitationService)
    config.register_service_factory(terms_service_factory(settings), iface=ITermsService)
    config.register_service_factory(team_service_factory, iface=ITeamService)
    # IFactorService is registered by the portal (`portal.accounts.factors`), which hands it the sealer of TOTP secrets
    # (the events context's keys: identity imports no context that reads it).
    config.register_service_factory(sign_in_steps_factory(settings), iface=ISignInSteps)
