"""Loads a served process does once, started as the server starts rather than inside the first request that
needs them: `add_warm_up(config, load)` from a context's includeme, run by the waitress runner
(`clinicrecords.serving`) on a thread of their own. The CLI and the tests never pay for them."""

import logging
import time

log = logging.getLogger(__name__)

# [load()] in the order added, kept in the registry.
WARM_UPS = "serving.warm_ups"


def add_warm_up(config, load):
    config.registry.setdefault(WARM_UPS, []).append(load)


def warm_up(registry):
    for load in registry.get(WARM_UPS, ()):
        name = f"{load.__module__}.{load.__qualname__}"
        started = time.monotonic()
        try:
            load()
        except Exception:  # the request that needs it loads it again, and answers its own error
            log.exception("warming up failed: %s", name)
        else:
            log.info("warmed up: %s (%.1f s)", name, time.monotonic() - started)
