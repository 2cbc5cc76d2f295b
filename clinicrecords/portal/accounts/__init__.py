"""Account pages: sign up and verify the address, log in, log out, forgotten password, password and email change
(the accounts are the identity context's)."""

from clinicrecords.portal.accounts.resources import (AccountPages, ForgotPassword, LogIn, LogOut, ResetPassword,
                                                     SignUp, VerifyEmail)
from clinicrecords.portal.web.resources import add_portal_child


def includeme(config):
    for name, factory in (("signup", SignUp), ("login", LogIn), ("logout", LogOut), ("account", AccountPages),
                          ("forgot-password", ForgotPassword), ("reset-password", ResetPassword),
                          ("verify-email", VerifyEmail)):
        add_portal_child(config, name, factory)
    config.scan(".views")
    config.include(".factors")
