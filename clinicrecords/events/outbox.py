"""Recording events. `emit` runs inside the caller's transaction: a rolled-back change leaves no event."""

import uuid

from sqlalchemy.dialects.postgresql import insert

from clinicrecords.events.models import Event, EventCounter


def next_seq(db):
    statement = insert(EventCounter).values(id=1, value=1)
    statement = statement.on_conflict_do_update(index_elements=[EventCounter.id],
                                                set_={"value": EventCounter.value + 1})
    return db.execute(statement.returning(EventCounter.value)).scalar_one()


def emit(db, clinic_id, type_, subject_id, data):
    """Record an event for the clinic the session is bound to. `data` is small and never a record."""
    event = Event(id=uuid.uuid4(), seq=next_seq(db), type=type_, clinic_id=clinic_id, subject_id=subject_id,
                  data=data)
    db.add(event)
    db.flush()
    return event
