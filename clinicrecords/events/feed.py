"""The change feed of one clinic (spec Events → Change feed) and its 30-day retention."""

import datetime

from sqlalchemy import delete, select
from zope.interface import implementer

from clinicrecords import clock
from clinicrecords.clinics.interfaces import clinic_scope
from clinicrecords.clinics.services import open_clinic
from clinicrecords.events.interfaces import IEventFeed
from clinicrecords.events.models import Event
from clinicrecords.events.types import visible_clause

RETENTION = datetime.timedelta(days=30)


@implementer(IEventFeed)
class FeedService:
    """The feed of the scope's clinic as the scope's key sees it."""

    def __init__(self, scope):
        self.db = scope.db
        self.granted = scope.granted
        self.owner_id = scope.identity.owner_id

    def page(self, after_seq, limit, now=None):
        """(events, next_after): kept events after `after_seq` that the caller may see now, in seq order."""
        now = now or clock.now()
        events = list(self.db.scalars(
            select(Event)
            .where(Event.seq > after_seq, Event.created_at >= now - RETENTION,
                   visible_clause(self.granted, self.owner_id))
            .order_by(Event.seq).limit(limit)
        ))
        return events, (events[-1].seq if events else after_seq)


def prune(db, clinic_id, now=None):
    """Delete the clinic's events older than the retention. Returns how many."""
    now = now or clock.now()
    if open_clinic(db, clinic_id) is None:
        return 0
    return db.execute(delete(Event).where(Event.created_at < now - RETENTION)).rowcount


def feed_factory(context, request):
    return FeedService(clinic_scope(context))
