"""The feed service built from a plain scope (no request), over a real clinic with recording on."""

from clinicrecords.access.interfaces import Permission
from clinicrecords.events.feed import FeedService
from tests.common.scopes import clinic_session, scope_over
from tests.events.support import emit_events


def test_the_feed_shows_what_the_scope_s_permissions_allow(world):
    clinic_id = world.clinic()
    world.webhook(clinic_id=clinic_id, types=["listing.freshness.changed"])
    emitted = emit_events(world, clinic_id, 3)
    with clinic_session(world, clinic_id) as (db, clinic):
        reader = FeedService(scope_over(db, clinic, granted={Permission.InventoryItemsRead.value}))
        events, next_after = reader.page(after_seq=1, limit=10)
        assert [e.id for e in events] == [e.id for e in emitted[1:]] and next_after == 3
        assert FeedService(scope_over(db, clinic, granted={Permission.PatientsRead.value})).page(0, 10) == ([], 0)
