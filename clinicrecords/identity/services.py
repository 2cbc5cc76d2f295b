"""The identity context's building blocks other contexts may use (interfaces in `identity/interfaces.py`)."""

from clinicrecords.identity.breached import is_breached_password
from clinicrecords.identity.qr import qr_svg, secret_for_typing
from clinicrecords.identity.recovery_codes import RecoveryCodes, normal_recovery_code
from clinicrecords.identity.sealing import totp_secret_sealer
from clinicrecords.identity.totp import AuthenticatorApps, Enrolment, normal_code

__all__ = ["AuthenticatorApps", "Enrolment", "RecoveryCodes", "is_breached_password", "normal_code",
           "normal_recovery_code", "qr_svg", "secret_for_typing", "totp_secret_sealer"]
