"""The process's one task queue (`clinicrecords.tasks.huey`) and the registry its tasks run in, as the suite set
them up. Building an application in this process (another test app, a command run in-process, a benchmark, a
half-built app that refused its settings) configures both for itself; what the suite runs afterwards must find
them as they were: a queue left out of immediate mode keeps every later task of that test process waiting."""

import contextlib

from clinicrecords import tasks


def configuration():
    """What decides where a task goes: whether it runs at once, and the storage it is queued in."""
    huey = tasks.huey
    return huey.immediate, huey.storage_class, huey.storage_kwargs, huey.storage


def restore(saved):
    huey = tasks.huey
    # Setting `immediate` may swap the storage (huey recreates it), so the saved storage goes back last.
    huey.immediate, huey.storage_class, huey.storage_kwargs, huey.storage = saved


@contextlib.contextmanager
def kept():
    """Whatever is built inside, the queue's configuration and the tasks' registry come back as they were."""
    saved_queue, saved_state = configuration(), dict(tasks._state)
    try:
        yield
    finally:
        restore(saved_queue)
        tasks._state.clear()
        tasks._state.update(saved_state)
