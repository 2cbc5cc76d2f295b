"""Account pages: sign up, log in, log out, password change (the accounts are the identity context's)."""

from clinicrecords.portal.accounts.resources import AccountPages, LogIn, LogOut, SignUp
from clinicrecords.portal.web.resources import add_portal_child


def includeme(config):
    for name, factory in (("signup", SignUp), ("login", LogIn), ("logout", LogOut), ("account", AccountPages)):
        add_portal_child(config, name, factory)
    config.scan(".views")
