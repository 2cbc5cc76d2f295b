"""Events: the per-clinic outbox and change feed, and webhooks."""


def includeme(config):
    pass
