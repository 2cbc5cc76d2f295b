"""API conventions shared by every bounded context: problems, request ids, bodies, logging."""


def includeme(config):
    config.include(".request_id")
    config.include(".body")
    config.include(".request_log")
    config.scan(".errorviews")
