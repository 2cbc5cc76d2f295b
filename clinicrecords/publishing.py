"""Domain events: a context tells of a moment of its own (a connection approved, a domain lapsed, an endpoint
disabled) without knowing who listens, and whoever listens acts inside the same transaction.

The emitting context declares a small frozen dataclass of plain facts (ids, names, a state; never a record) in
its own `published` module, re-exported by its `interfaces`, and calls `publish(event)` where the moment
happens: a service is handed `request_publisher(request)` by its factory, code that runs on a session of its
own (a webhook attempt) calls `publish_in(registry, db, event)`. Listeners registered with
`listen(config, EventClass, listener)` are called at once, synchronously, as `listener(event, place)`; the
`Place` names the transaction the moment belongs to (its session, and how to queue work after its commit), so
what a listener writes commits or rolls back with the change it tells of. The registry keeps the listeners by
event class; they are not Pyramid subscribers, so the router, which has none, notifies none of its own events on
a request (docs/decisions/0168-no-router-events.md).
"""

import functools
from dataclasses import dataclass
from typing import Any, Callable

from sqlalchemy import event as sa_event

_QUEUED = "publishing.after_commit"
_LISTENERS = "publishing.listeners"
_LISTENING = "publishing.listening"


@dataclass(frozen=True)
class Place:
    """Where a moment happened: the registry, the session whose transaction it belongs to, and `enqueue(task,
    *args)`, which runs the task once that transaction has committed (never when it rolls back)."""

    registry: Any
    db: Any
    enqueue: Callable


def listen(config, event_class, listener):
    """Call `listener(event, place)` for every `event_class` published (a subclass's events included)."""
    config.registry.setdefault(_LISTENERS, {}).setdefault(event_class, []).append(listener)


def publish_in(registry, db, event, enqueue=None):
    """Tell every listener of `event` now, inside `db`'s transaction, in the order they were registered."""
    listening = registry.get(_LISTENERS, {})
    listeners = [listener for kind in type(event).__mro__ for listener in listening.get(kind, ())]
    if listeners:
        place = Place(registry, db, enqueue or after_commit_of(db))
        for listener in listeners:
            listener(event, place)


def request_publisher(request):
    """`publish(event)` in the request's transaction: what a service factory hands the service it builds."""
    return functools.partial(_publish_in_request, request)


def _publish_in_request(request, event):
    publish_in(request.registry, request.db, event, request.enqueue)


def after_commit_of(db):
    """`enqueue(task, *args)` for a session that is not a request's: the calls run once its outermost
    transaction has committed, after the connection went back to the pool, and are dropped on a rollback."""
    if not db.info.get(_LISTENING):
        sa_event.listen(db, "after_commit", _committed)
        sa_event.listen(db, "after_transaction_end", _ended)
        db.info[_LISTENING] = True

    def enqueue(task, *args, **kwargs):
        db.info.setdefault(_QUEUED, {"calls": [], "committed": False})["calls"].append((task, args, kwargs))

    return enqueue


def _committed(session):
    if session.get_nested_transaction() is None and _QUEUED in session.info:
        session.info[_QUEUED]["committed"] = True


def _ended(session, transaction):
    if transaction.parent is not None or transaction.nested:
        return
    queued = session.info.pop(_QUEUED, None)
    if queued and queued["committed"]:
        for task, args, kwargs in queued["calls"]:
            task(*args, **kwargs)
