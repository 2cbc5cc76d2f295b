"""The identity context's building blocks other contexts may use (interfaces in `identity/interfaces.py`)."""

from clinicrecords.identity.totp import AuthenticatorApps, normal_code

__all__ = ["AuthenticatorApps", "normal_code"]
