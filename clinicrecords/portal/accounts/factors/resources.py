"""The second factors' pages: the person's own, under `/account/two-factor` (both faces: one set of views and
templates), and the sign-in's second step and password-free passkey sign-in, under `/login`."""

import uuid

from pyramid.httpexceptions import HTTPForbidden

from clinicrecords.identity.services import IFactorService
from clinicrecords.portal.web.resources import Node


class AppRemoval(Node):
    """/account/two-factor/app/remove: a confirmation, then the removal."""


class AppPage(Node):
    """/account/two-factor/app: set up an authenticator app (the QR code and the secret as text), confirm it
    with a code (POST `…/app/confirm`)."""

    children = {"remove": AppRemoval}


class RecoveryCodesPage(Node):
    """/account/two-factor/recovery-codes: the codes once, after they were made; make new ones."""


class PasskeyItem(Node):
    """/account/two-factor/passkeys/{passkey_id}: rename it, remove it (the signed-in account's own only)."""

    def __init__(self, parent, name, passkey):
        super().__init__(parent, name)
        self.passkey = passkey


class PasskeysPage(Node):
    """/account/two-factor/passkeys: add a passkey (named); its items are the account's own passkeys."""

    service, item_resource, item_parameter = IFactorService, PasskeyItem, "passkey_id"

    def __getitem__(self, name):
        identity = self.request.identity
        if identity is None:
            raise HTTPForbidden()  # to the login page, before anything about the id is looked up
        try:
            passkey_id = uuid.UUID(name)
        except ValueError:
            raise KeyError(name) from None
        passkey = self.request.find_service(self.service).passkey(identity.account_id, passkey_id)
        if passkey is None:
            raise KeyError(name)
        return self.item_resource(self, name, passkey)


class TwoFactorPage(Node):
    """/account/two-factor: the person's second factors, and the way to each."""

    children = {"app": AppPage, "recovery-codes": RecoveryCodesPage, "passkeys": PasskeysPage}


class SecondStep(Node):
    """/login/second-step: a browser past the password whose second step is due (its own cookie, no session);
    POST a code, or `…/passkey` a passkey's answer."""

    public = True


class PasskeySignIn(Node):
    """/login/passkey: sign in with a passkey alone; `…/options` (GET) starts the ceremony."""

    public = True
