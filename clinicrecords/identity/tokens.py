"""Bearer tokens the portal hands to browsers (session cookies, invitation links): random, and stored only as
their SHA-256, so a copy of the tables opens nothing."""

import hashlib
import secrets


def new_token():
    return secrets.token_urlsafe(32)


def token_hash(token):
    return hashlib.sha256(token.encode()).digest()
