"""Second factors in the portal (decision 0096): the person's two-factor pages under `/account/two-factor` (both
faces), the second step of signing in and password-free passkey sign-in under `/login`, and the guard that
leads a person who must have a second factor to enrol (`required.py`)."""

from clinicrecords.events.services import secret_sealer
from clinicrecords.identity.services import (CODE, TOTP_SECRET, IFactorService, code_verifier_factory,
                                             factor_service_factory)
from clinicrecords.portal.accounts.factors.confirm_passkey import PASSKEY, passkey_verifier_factory, prepare_ceremony
from clinicrecords.portal.accounts.factors.required import second_factor_deriver
from clinicrecords.portal.accounts.factors.signin import SIGN_IN_COOKIE, SignInCookie
from clinicrecords.portal.surface import PORTAL_PREFIX
from clinicrecords.portal.web.reauth import add_reauth_method
from clinicrecords.settings import app_settings


def totp_sealer(registry):
    """TOTP secrets are sealed with the webhook secrets' keys, under a purpose of their own (identity/sealing.py)."""
    return secret_sealer(registry, TOTP_SECRET)


def includeme(config):
    settings = app_settings(config.registry)
    config.register_service_factory(factor_service_factory(settings, totp_sealer), iface=IFactorService)
    # "Confirm it's you" also takes an authenticator app's code or a recovery code, once the person has a factor.
    add_reauth_method(config, CODE, code_verifier_factory(settings),
                      "clinicrecords.portal.accounts.factors:templates/confirm_code.jinja2")
    add_reauth_method(config, PASSKEY, passkey_verifier_factory,
                      "clinicrecords.portal.accounts.factors:templates/confirm_passkey.jinja2",
                      prepare=prepare_ceremony)
    config.registry[SIGN_IN_COOKIE] = SignInCookie(settings.portal, config.registry[PORTAL_PREFIX])
    config.add_view_deriver(second_factor_deriver, name="portal_second_factor", under="portal_csrf")
    config.scan(".views")
