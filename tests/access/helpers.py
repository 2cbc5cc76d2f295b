"""Small helpers shared by the access tests."""


from tests.common.cli import admin  # noqa: F401  (re-exported: this context's tests import them from here)


def bearer(key):
    return {"Authorization": f"Bearer {key}"}


