"""TOTP secrets are sealed with the application's webhook keys (`secrets.webhook_keys`), under a purpose of their
own: a sealed TOTP secret opens only as a TOTP secret of its own factor, never as a webhook secret (also through
the real webhook service, reading a real endpoint row), and a webhook secret never opens as a TOTP secret."""

import uuid

import pyotp
import pytest
from sqlalchemy import select, update
from zope.interface.verify import verifyObject

from clinicrecords.events.interfaces import ISecretSealer, IWebhookEndpoints, Owner, SecretBoxError, WebhookError
from clinicrecords.events.models import WebhookEndpoint
from clinicrecords.events.secret_box import SecretBox, new_key_entry
from clinicrecords.events.services import secret_sealer
from clinicrecords.events.settings import webhook_settings
from clinicrecords.identity.services import TOTP_SECRET


@pytest.fixture
def sealer(registry):
    return secret_sealer(registry, TOTP_SECRET)


def test_a_totp_secret_opens_for_its_own_factor_only(sealer):
    secret, factor_id = pyotp.random_base32(32), uuid.uuid4()
    sealed = sealer.seal(secret, factor_id)
    assert secret not in sealed and sealed.startswith("v1:test:")
    assert sealer.open(sealed, factor_id) == secret
    assert sealer.seal(secret, factor_id) != sealed  # a fresh nonce each time
    with pytest.raises(SecretBoxError):
        sealer.open(sealed, uuid.uuid4())  # copied onto another factor's row


def test_it_is_sealed_with_the_keys_of_the_setting(sealer, settings):
    sealed = sealer.seal("JBSWY3DPEHPK3PXP", uuid.uuid4())
    assert sealed.split(":")[1] == settings["secrets.webhook_keys"].split(":")[0]
    assert not sealer.needs_reseal(sealed)
    with pytest.raises(SecretBoxError):  # another key ring does not open it
        SecretBox.from_setting(new_key_entry("test")).for_purpose("identity.totp_secret").open(sealed, uuid.uuid4())


def test_a_sealed_totp_secret_never_opens_as_a_webhook_secret_nor_the_other_way(sealer, registry):
    box = webhook_settings(registry).secret_box
    subject = uuid.uuid4()
    as_totp = sealer.seal("JBSWY3DPEHPK3PXP", subject)
    with pytest.raises(SecretBoxError):
        box.open(as_totp, subject)
    as_webhook = box.seal("whsec_c2VjcmV0", subject)
    with pytest.raises(SecretBoxError):
        sealer.open(as_webhook, subject)
    assert box.open(as_webhook, subject) == "whsec_c2VjcmV0"


def test_another_purpose_does_not_open_it(sealer, registry):
    subject = uuid.uuid4()
    sealed = sealer.seal("JBSWY3DPEHPK3PXP", subject)
    with pytest.raises(SecretBoxError):
        secret_sealer(registry, "identity.totp_secret2").open(sealed, subject)
    with pytest.raises(SecretBoxError):
        secret_sealer(registry, "portal.something").open(sealed, subject)


def test_a_totp_secret_copied_onto_a_webhook_endpoints_row_is_not_revealed(world, sealer):
    """What a person with write access to the table could try: the webhook service refuses to reveal it."""
    clinic_id = world.clinic()
    endpoint_id, _ = world.webhook(clinic_id=clinic_id)
    with world.request() as request:
        own = request.db.scalar(select(WebhookEndpoint.secret_sealed).where(WebhookEndpoint.id == endpoint_id))
    _set_sealed(world, endpoint_id, sealer.seal("JBSWY3DPEHPK3PXP", endpoint_id))
    try:
        with world.request() as request, pytest.raises(WebhookError) as refused:
            request.find_service(IWebhookEndpoints).reveal_secret(Owner(clinic_id=clinic_id), endpoint_id)
        assert refused.value.code == "secret_unavailable"
        assert "JBSWY3DPEHPK3PXP" not in str(refused.value)
    finally:
        # The row is committed: a key rotation test's reseal of every endpoint must find only webhook secrets.
        _set_sealed(world, endpoint_id, own)


def _set_sealed(world, endpoint_id, sealed):
    with world.request() as request:
        request.db.execute(update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id)
                           .values(secret_sealed=sealed))


def test_a_webhook_secret_is_still_revealed(world):
    clinic_id = world.clinic()
    endpoint_id, secret = world.webhook(clinic_id=clinic_id)
    with world.request() as request:
        assert request.find_service(IWebhookEndpoints).reveal_secret(Owner(clinic_id=clinic_id), endpoint_id) == secret


def test_after_a_key_rotation_it_needs_resealing_and_still_opens():
    old_entry, new_entry = new_key_entry("old"), new_key_entry("new")
    subject = uuid.uuid4()
    sealed = SecretBox.from_setting(old_entry).for_purpose("identity.totp_secret").seal("JBSWY3DPEHPK3PXP", subject)
    rotated = SecretBox.from_setting(f"{new_entry} {old_entry}").for_purpose("identity.totp_secret")
    assert rotated.needs_reseal(sealed)
    assert rotated.open(sealed, subject) == "JBSWY3DPEHPK3PXP"
    resealed = rotated.seal("JBSWY3DPEHPK3PXP", subject)
    assert resealed.startswith("v1:new:") and not rotated.needs_reseal(resealed)
    with pytest.raises(SecretBoxError):  # once the old key has left the setting
        SecretBox.from_setting(new_entry).for_purpose("identity.totp_secret").open(sealed, subject)


@pytest.mark.parametrize("value", ["", "v1:test", "v1:test:@@@", "v1:test:" + "A" * 10, "v2:test:AAAA"])
def test_what_is_no_sealed_value_is_refused_as_such(sealer, value):
    with pytest.raises(SecretBoxError):
        sealer.open(value, uuid.uuid4())


@pytest.mark.parametrize("purpose", ["", "ab", "Identity.totp", "identity totp", "identity:totp", "1identity",
                                     "x" * 65, None])
def test_a_purpose_is_a_plain_name(registry, purpose):
    with pytest.raises(ValueError):
        secret_sealer(registry, purpose)


def test_it_offers_what_its_interface_declares(sealer):
    assert verifyObject(ISecretSealer, sealer)
    assert sealer.purpose == "identity.totp_secret"
