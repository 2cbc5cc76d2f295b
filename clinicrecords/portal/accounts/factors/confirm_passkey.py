""""Confirm it's you" with a passkey (issue 34, item 5): the confirm page's third way, beside the password and a
code, for a person who has a passkey where passkeys work (a host name, not an IP address). The page runs an
authentication ceremony limited to the person's own passkeys; its challenge waits for this session
(`IOneTimeReads`), read once by the POST."""

import base64
import uuid

from zope.interface import implementer

from clinicrecords.errors import FieldErrors
from clinicrecords.identity.services import IFactorService, IReauthVerifier
from clinicrecords.portal.accounts.factors.signin import portal_rp
from clinicrecords.portal.web.headers import loads_passkey_script
from clinicrecords.portal.web.interfaces import IOneTimeReads

PASSKEY = "passkey"
CEREMONY = "passkey-confirm"
REFUSED = "That passkey did not confirm it's you: try again, or use another way below"


@implementer(IReauthVerifier)
class PasskeyVerifier:
    fields = ("credential", "ceremony")

    def __init__(self, request):
        self.request = request
        self.factors = request.find_service(IFactorService)

    def available(self, account_id):
        return portal_rp(self.request) is not None and bool(self.factors.factors(account_id).passkeys)

    def verify(self, account_id, proof, address):
        challenge = self._challenge(proof.get("ceremony"))
        rp = portal_rp(self.request)
        if challenge is None or rp is None or not proof.get("credential") or \
                not self.factors.verify_passkey(account_id, rp, proof["credential"], challenge):
            raise FieldErrors("credential", REFUSED)

    def _challenge(self, ceremony_id):
        try:
            read_id = uuid.UUID(ceremony_id or "")
        except ValueError:
            return None
        stashed = self.request.find_service(IOneTimeReads).take(CEREMONY, read_id)
        return None if stashed is None else base64.urlsafe_b64decode(stashed)


def passkey_verifier_factory(context, request):
    return PasskeyVerifier(request)


def prepare_ceremony(request):
    """A new ceremony for this page: the options the page's script hands the browser, and the id its challenge
    waits under."""
    ceremony = request.find_service(IFactorService).second_step_options(request.identity.account_id,
                                                                         portal_rp(request))
    if ceremony is None:
        return {"ceremony": None, "ceremony_id": ""}
    read_id = request.find_service(IOneTimeReads).put(CEREMONY, base64.urlsafe_b64encode(ceremony.challenge).decode())
    loads_passkey_script(request)
    return {"ceremony": ceremony, "ceremony_id": str(read_id)}
