"""Each person's notification settings: a row per notification turned off, none for those left on."""

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert
from zope.interface import implementer

from clinicrecords.errors import FieldErrors
from clinicrecords.notifications.interfaces import INotificationSettings
from clinicrecords.notifications.kinds import KIND_NAMES, kinds_of
from clinicrecords.notifications.models import TurnedOff

UNKNOWN_CHOICE = "Choose only among the notifications listed"


@implementer(INotificationSettings)
class NotificationSettings:
    def __init__(self, db):
        self.db = db

    def enabled(self, account_id):
        off = set(self.db.scalars(select(TurnedOff.kind).where(TurnedOff.account_id == account_id)))
        return frozenset(KIND_NAMES - off)

    def choose(self, account_id, face, names):
        offered = {kind.name for kind in kinds_of(face)}
        chosen = set(names)
        if not offered or chosen - offered:
            raise FieldErrors("notify", UNKNOWN_CHOICE)
        self.db.execute(delete(TurnedOff).where(TurnedOff.account_id == account_id, TurnedOff.kind.in_(chosen)))
        turned_off = sorted(offered - chosen)
        if turned_off:
            self.db.execute(insert(TurnedOff).values([{"account_id": account_id, "kind": name}
                                                      for name in turned_off]).on_conflict_do_nothing())

    def wanting(self, kind, account_ids):
        account_ids = list(account_ids)
        if not account_ids:
            return []
        off = set(self.db.scalars(select(TurnedOff.account_id).where(TurnedOff.kind == kind.name,
                                                                     TurnedOff.account_id.in_(account_ids))))
        return [account_id for account_id in account_ids if account_id not in off]


def notification_settings_factory(context, request):
    return NotificationSettings(request.db)
