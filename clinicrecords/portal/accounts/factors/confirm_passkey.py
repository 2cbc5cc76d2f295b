""""Confirm it's you" with a passkey (decision 0091): the confirm page's third way, beside the password and a
code, for a person who has a passkey where passkeys work (a host name, not an IP address). The page runs an
authentication ceremony limited to the person's own passkeys; its challenge waits for this session
(`IOneTimeReads`), read once by the POST."""

from zope.interface import implementer

from clinicrecords.errors import FieldErrors
from clinicrecords.identity.services import IFactorService, IReauthVerifier
from clinicrecords.portal.accounts.factors import ceremonies
from clinicrecords.portal.accounts.factors.signin import portal_rp
from clinicrecords.portal.web.headers import loads_passkey_script

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
        stashed = ceremonies.take(self.request, CEREMONY, proof.get("ceremony"))
        challenge = None if stashed is None else stashed["challenge"]
        rp = portal_rp(self.request)
        if challenge is None or rp is None or not proof.get("credential") or \
                not self.factors.verify_passkey(account_id, rp, proof["credential"], challenge):
            raise FieldErrors("credential", REFUSED)


def passkey_verifier_factory(context, request):
    return PasskeyVerifier(request)


def prepare_ceremony(request):
    """A new ceremony for this page: the options the page's script hands the browser, and the id its challenge
    waits under."""
    ceremony = request.find_service(IFactorService).second_step_options(request.identity.account_id,
                                                                         portal_rp(request))
    if ceremony is None:
        return {"ceremony": None, "ceremony_id": ""}
    ceremony_id = ceremonies.stash(request, CEREMONY, challenge=ceremony.challenge)
    loads_passkey_script(request)
    return {"ceremony": ceremony, "ceremony_id": ceremony_id}
