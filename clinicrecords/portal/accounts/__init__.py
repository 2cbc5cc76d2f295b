"""Account pages: sign up and verify the address, log in, log out, forgotten password, password and email change,
"Confirm it's you" before sensitive actions, one's sessions and the notifications one gets (the accounts are the
identity context's; the settings the notifications')."""

from clinicrecords.identity.services import PASSWORD
from clinicrecords.portal.accounts.resources import (AccountPages, ConfirmPage, ForgotPassword, LogIn, LogOut,
                                                     ResetPassword, SignUp, VerifyEmail)
from clinicrecords.portal.web.reauth import add_confirm_form
from clinicrecords.portal.web.resources import add_portal_child


def includeme(config):
    for name, factory in (("signup", SignUp), ("login", LogIn), ("logout", LogOut), ("account", AccountPages),
                          ("forgot-password", ForgotPassword), ("reset-password", ResetPassword),
                          ("verify-email", VerifyEmail), ("confirm", ConfirmPage)):
        add_portal_child(config, name, factory)
    add_confirm_form(config, PASSWORD, "clinicrecords.portal.accounts:templates/confirm_password.jinja2")
    config.scan(".views")
    config.scan(".confirm")
    config.scan(".sessions")
    config.scan(".notification_settings")
    config.include(".factors")
