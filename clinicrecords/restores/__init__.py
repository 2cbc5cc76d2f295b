"""Restores: what an operator runs after the database, or one clinic, was brought back to an earlier point in
time (docs/operations.md). Operator commands only: nothing is served over HTTP."""


def includeme(config):
    """Nothing to register: the context's commands are found through its `cli` module."""
