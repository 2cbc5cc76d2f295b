"""The identity context's building blocks other contexts may use (interfaces in `identity/interfaces.py`)."""

from clinicrecords.identity.breached import is_breached_password
from clinicrecords.identity.qr import qr_svg, secret_for_typing
from clinicrecords.identity.recovery_codes import RecoveryCodes, normal_recovery_code
from clinicrecords.identity.sealing import totp_secret_sealer
from clinicrecords.identity.totp import AuthenticatorApps, Enrolment, normal_code
from clinicrecords.identity.webauthn_ceremonies import (Ceremony, KnownPasskey, NewPasskey, PasskeyRefused, PasskeyUse,
                                                        RelyingParty, authentication_options, credential_id_of,
                                                        new_user_handle, registration_options, relying_party,
                                                        user_handle_of, verify_authentication, verify_registration)

__all__ = [
    "AuthenticatorApps", "Enrolment", "normal_code", "qr_svg", "secret_for_typing",
    "RecoveryCodes", "normal_recovery_code",
    "totp_secret_sealer",
    "is_breached_password",
    "Ceremony", "KnownPasskey", "NewPasskey", "PasskeyRefused", "PasskeyUse", "RelyingParty", "authentication_options",
    "credential_id_of", "new_user_handle", "registration_options", "relying_party", "user_handle_of",
    "verify_authentication", "verify_registration",
]
