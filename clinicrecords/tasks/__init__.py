"""Background work on Huey.

`huey` is one process-wide instance whose storage is chosen from the settings when the application starts:
a SQLite file under the var dir (development), Redis (production: one server or the primary Sentinels name,
`clinicrecords.redis_connection`), or memory (tests, immediate mode).

Tasks are declared with `@task()`; the function receives a prepared request inside its own transaction
manager, like a web request. Work is queued with `request.enqueue(task, ...)`, which waits for the request's
transaction to commit: a rolled-back request never sends work.

Every task is stamped with the time it was queued (`QUEUED_AT`, what the queue's age metric reads of the
oldest waiting task) and with what envelopes add (`add_task_envelope`: the trace context of the request that
queued it), carried in the message's keyword arguments and taken off before the task's function runs.
"""

import contextlib
import functools
import random
import time

import transaction
from huey import Huey
from huey import signals
from huey.storage import MemoryStorage, RedisStorage, SqliteStorage
from pyramid.scripting import prepare

from clinicrecords import redis_connection
from clinicrecords.settings import app_settings, var_dir

HUEY_NAME = "clinicrecords"

# results=False: nothing reads a task's return value, and kept results would pile up in Redis (one entry per
# webhook delivery, never expiring) until a Redis without eviction refuses every write.
huey = Huey(HUEY_NAME, results=False, storage_class=MemoryStorage)
_state = {"registry": None}
# The keyword argument each task message carries: time.time() when it was queued.
QUEUED_AT = "_queued_at"
# (keyword, pack, unpack) of each envelope: `pack()` → a value to carry (None: nothing) when a task is queued;
# `unpack(value, task_name)` → a context manager the task's function runs inside.
_ENVELOPES = []


def add_task_envelope(keyword, pack, unpack):
    """Carry `pack()`'s value with every task queued from now on, and run each task inside
    `unpack(value, task_name)`."""
    if all(keyword != known for known, _, _ in _ENVELOPES):
        _ENVELOPES.append((keyword, pack, unpack))


def _stamp(signal, task, *args):
    kwargs = task.kwargs if task.kwargs is not None else {}
    kwargs[QUEUED_AT] = time.time()
    for keyword, pack, _ in _ENVELOPES:
        value = pack()
        if value is not None:
            kwargs[keyword] = value
    task.kwargs = kwargs


huey.signal(signals.SIGNAL_ENQUEUED)(_stamp)


@contextlib.contextmanager
def _opened(kwargs, function):
    """Takes the stamps off `kwargs` (what the task's function receives) and enters their envelopes."""
    kwargs.pop(QUEUED_AT, None)
    with contextlib.ExitStack() as stack:
        for keyword, _, unpack in _ENVELOPES:
            if keyword in kwargs:
                stack.enter_context(unpack(kwargs.pop(keyword), f"{function.__module__}.{function.__name__}"))
        yield


def configure(settings):
    """The queue's storage from the typed settings (`huey.*`)."""
    queue = settings.queue
    backend = queue.backend
    if backend == "sqlite":
        filename = queue.sqlite_path or str(var_dir(settings) / "huey.db")
        huey.storage_class, huey.storage_kwargs = SqliteStorage, {"filename": filename}
    elif backend == "redis":
        if not queue.redis_url:
            raise ValueError("huey.backend = redis needs huey.redis_url")
        huey.storage_class = RedisStorage
        huey.storage_kwargs = {"connection_pool": redis_connection.connection_pool(queue.redis_url)}
    elif backend == "memory":
        huey.storage_class, huey.storage_kwargs = MemoryStorage, {}
    else:
        raise ValueError(f"huey.backend must be sqlite, redis or memory, not {backend!r}")
    huey.immediate = queue.immediate
    huey.storage = huey.create_storage()


def task(**options):
    """Declare a task whose function takes `(request, *args)` and runs in its own transaction."""

    def decorate(function):
        @functools.wraps(function)
        def run_in_request(*args, **kwargs):
            with _opened(kwargs, function), prepared_request() as request:
                with request.tm:
                    return function(request, *args, **kwargs)

        # wraps() keeps the function's module and name, from which huey names the task.
        return huey.task(**options)(run_in_request)

    return decorate


def periodic_task(validate_datetime, **options):
    """Declare a periodic task whose function takes `request` and runs in one transaction."""

    def decorate(function):
        @functools.wraps(function)
        def run_in_request():
            with prepared_request() as request, request.tm:
                return function(request)

        return periodic_job(validate_datetime, **options)(run_in_request)

    return decorate


def periodic_job(validate_datetime, **options):
    """Declare a periodic task whose function takes nothing and opens its own requests (a transaction per item
    it handles). Like every task, it runs inside what the stamps carry (the trace context)."""

    def decorate(function):
        @functools.wraps(function)
        def run_with_stamps(**stamps):
            with _opened(stamps, function):
                return function()

        return huey.periodic_task(validate_datetime, **options)(run_with_stamps)

    return decorate


class prepared_request:
    """A request on a registry (the one configured for tasks by default) with a transaction manager of its own."""

    def __init__(self, registry=None):
        self.registry = registry

    def __enter__(self):
        registry = self.registry or _state["registry"]
        if registry is None:
            raise RuntimeError("the application is not configured in this process")
        self.env = prepare(registry=registry)
        request = self.env["request"]
        request.tm = transaction.TransactionManager(explicit=True)
        return request

    def __exit__(self, *exc):
        self.env["closer"]()


def backoff_seconds(attempts, base_seconds, cap_seconds, rng=random):
    """How long to wait after the n-th failed attempt of an outbox's work (webhook deliveries, mail):
    uniform(0.5, 1.0) × min(cap, base × 2^(n-1)), so retries spread out rather than arrive together."""
    return rng.uniform(0.5, 1.0) * min(cap_seconds, base_seconds * 2 ** (attempts - 1))


def _enqueue(request, task_function, *args, **kwargs):
    def after_commit(succeeded):
        if succeeded:
            task_function(*args, **kwargs)

    request.tm.get().addAfterCommitHook(after_commit)


def includeme(config):
    configure(app_settings(config.registry))
    _state["registry"] = config.registry
    config.add_request_method(_enqueue, "enqueue")
