"""A software authenticator and browser for the WebAuthn tests: an EC P-256 key (`cryptography`), the
authenticator data, client data JSON and a "none" attestation object (cbor2) built as the specification lays
them out, and ES256 signatures, so the ceremonies' verification runs for real. Each call can lie the way an
attacker or a broken authenticator would (another origin, another rp id, an old challenge, a sign count)."""

import base64
import hashlib
import json
import os
import struct

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, BE, BS, AT = 0x01, 0x04, 0x08, 0x10, 0x40


def b64url(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftwareAuthenticator:
    def __init__(self, sign_count=0, verifies_user=True, counts=True):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.sign_count = sign_count
        self.verifies_user = verifies_user
        self.counts = counts  # False: a synced passkey, whose count stays 0
        self.user_handle = None

    def cose_public_key(self):
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"),
                            -3: numbers.y.to_bytes(32, "big")})

    def _flags(self, extra=0):
        return UP | (UV if self.verifies_user else 0) | extra

    def create(self, options_json, origin, rp_id=None, challenge=None, client_type="webauthn.create"):
        """The browser's JSON answer to navigator.credentials.create() with these options."""
        options = json.loads(options_json)
        rp_id = rp_id if rp_id is not None else options["rp"]["id"]
        self.user_handle = unb64url(options["user"]["id"])
        auth_data = (hashlib.sha256(rp_id.encode()).digest() + bytes([self._flags(AT)])
                     + struct.pack(">I", self.sign_count) + bytes(16)
                     + struct.pack(">H", len(self.credential_id)) + self.credential_id + self.cose_public_key())
        client_data = self._client_data(client_type, challenge or options["challenge"], origin)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return json.dumps({
            "id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
            "authenticatorAttachment": "platform", "clientExtensionResults": {},
            "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation),
                         "transports": ["internal", "hybrid"]}})

    def get(self, options_json, origin, rp_id=None, challenge=None, sign_count=None, key=None,
            client_type="webauthn.get", user_handle=True):
        """The browser's JSON answer to navigator.credentials.get(); the count goes up by one unless given."""
        options = json.loads(options_json)
        rp_id = rp_id if rp_id is not None else options["rpId"]
        if sign_count is None:
            if self.counts:
                self.sign_count += 1
            sign_count = self.sign_count
        auth_data = hashlib.sha256(rp_id.encode()).digest() + bytes([self._flags()]) + struct.pack(">I", sign_count)
        client_data = self._client_data(client_type, challenge or options["challenge"], origin)
        signature = (key or self.key).sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        response = {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data),
                    "signature": b64url(signature)}
        if user_handle is True and self.user_handle is not None:
            response["userHandle"] = b64url(self.user_handle)
        elif isinstance(user_handle, bytes):
            response["userHandle"] = b64url(user_handle)
        return json.dumps({"id": b64url(self.credential_id), "rawId": b64url(self.credential_id),
                           "type": "public-key", "clientExtensionResults": {}, "response": response})

    @staticmethod
    def _client_data(client_type, challenge, origin):
        challenge = challenge if isinstance(challenge, str) else b64url(challenge)
        return json.dumps({"type": client_type, "challenge": challenge, "origin": origin,
                           "crossOrigin": False}).encode()
