"""Portal accounts: sign up, log in, log out, password change."""

from clinicrecords.portal.accounts.interfaces import IAccountService
from clinicrecords.portal.accounts.resources import AccountPages, LogIn, LogOut, SignUp
from clinicrecords.portal.accounts.services import account_service_factory
from clinicrecords.portal.web.resources import add_portal_child
from clinicrecords.settings import app_settings


def includeme(config):
    config.register_service_factory(account_service_factory(app_settings(config.registry)), iface=IAccountService)
    for name, factory in (("signup", SignUp), ("login", LogIn), ("logout", LogOut), ("account", AccountPages)):
        add_portal_child(config, name, factory)
    config.scan(".views")
