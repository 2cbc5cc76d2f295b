"""Small helpers shared by the access tests."""


from tests.common.cli import admin


def bearer(key):
    return {"Authorization": f"Bearer {key}"}


