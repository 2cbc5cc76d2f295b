"""What other contexts use of the identity context (interfaces in `identity/interfaces.py`): the services'
interfaces and what they hand back, the rules the portal's forms share (emails, passwords), the API Terms'
record as the key's statement reads it, and the second factors' building blocks."""

from clinicrecords.identity.accounts import email_problem, normal_email
from clinicrecords.identity.factors import Factors, PasskeyShown, factor_service_factory
from clinicrecords.identity.interfaces import (IAccountService, IAuditTrail, IFactorService, IInvitationService,
                                               IKnownDevices, IMembershipService, IReauthentication, IReauthVerifier,
                                               IRecoveryService, ISessionService, ISignInSteps, ITeamService,
                                               ITermsService)
from clinicrecords.identity.memberships import memberships_in, staff_roles_stored
from clinicrecords.identity.second_step import LIFETIME as SECOND_STEP_LIFETIME, PendingStep, prune_pending_sign_ins
from clinicrecords.identity.models import STAFF_ROLES, WORKSPACE_ROLES
from clinicrecords.identity.passwords import password_problem
from clinicrecords.identity.places import Place
from clinicrecords.identity.recovery import prune_recovery
from clinicrecords.identity.reauth import CODE, PASSWORD, REAUTH_WINDOW, add_reauth_method, code_verifier_factory
from clinicrecords.identity.sessions import SESSION_RULES, ActiveSession, SessionRules, SessionSummary, prune_sessions
from clinicrecords.identity.terms import (CURRENT_VERSION, OPERATOR, current_terms_version, has_accepted_terms,
                                          record_terms_acceptance, terms_accepted)
from clinicrecords.identity.tokens import new_token, token_hash

from clinicrecords.identity.breached import is_breached_password
from clinicrecords.identity.qr import qr_svg, secret_for_typing
from clinicrecords.identity.recovery_codes import RecoveryCodes, normal_recovery_code
from clinicrecords.identity.sealing import TOTP_SECRET
from clinicrecords.identity.totp import AuthenticatorApps, Enrolment, normal_code
from clinicrecords.identity.webauthn_ceremonies import (Ceremony, KnownPasskey, NewPasskey, PasskeyRefused, PasskeyUse,
                                                        RelyingParty, authentication_options, credential_id_of,
                                                        new_user_handle, registration_options, relying_party,
                                                        user_handle_of, verify_authentication, verify_registration)

__all__ = [
    "IAccountService", "IAuditTrail", "IInvitationService", "IMembershipService", "ISessionService",
    "IRecoveryService", "ITeamService", "ITermsService", "Place", "ActiveSession", "prune_recovery",
    "IKnownDevices", "IReauthentication", "IReauthVerifier", "CODE", "PASSWORD", "REAUTH_WINDOW", "add_reauth_method",
    "code_verifier_factory",
    "SESSION_RULES", "SessionRules", "SessionSummary", "STAFF_ROLES", "WORKSPACE_ROLES",
    "IFactorService", "ISignInSteps", "Factors", "PasskeyShown", "PendingStep",
    "factor_service_factory", "prune_pending_sign_ins", "SECOND_STEP_LIFETIME",
    "staff_roles_stored", "memberships_in",
    "email_problem", "normal_email", "password_problem", "prune_sessions", "new_token", "token_hash",
    "CURRENT_VERSION", "OPERATOR", "current_terms_version", "has_accepted_terms", "record_terms_acceptance",
    "terms_accepted",
    "AuthenticatorApps", "Enrolment", "normal_code", "qr_svg", "secret_for_typing",
    "RecoveryCodes", "normal_recovery_code",
    "TOTP_SECRET",
    "is_breached_password",
    "Ceremony", "KnownPasskey", "NewPasskey", "PasskeyRefused", "PasskeyUse", "RelyingParty", "authentication_options",
    "credential_id_of", "new_user_handle", "registration_options", "relying_party", "user_handle_of",
    "verify_authentication", "verify_registration",
]
