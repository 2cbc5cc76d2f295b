"""Transaction-scoped advisory locks named by what they guard: `<purpose>:<part>:<part>`, held until the
transaction that takes them ends.

- `idempotency:<owner>:<key>`: an Idempotency-Key while its first request runs. Taken without waiting inside
  `control.idempotency_claim` (migration c23: the lock and the lookup of the stored answer in one round trip,
  the lookup's snapshot taken after the lock), which builds this same name; a retry finding it held is 409
  idempotency_key_reused (`api/idempotency.py`).
- `client_reference:<owner>:<reference>`: a sender's client_reference while a send naming it is checked, so
  two sends with one reference run one after the other and the second sees the first (the review queue).
- `import:<clinic>:<content hash>`: a patient import's content while an identical import is looked for.
"""

from sqlalchemy import String, bindparam, func, select

_HOLD = select(func.pg_advisory_xact_lock(func.hashtextextended(bindparam("name", type_=String()), 0)))


def lock_name(purpose, *parts):
    return ":".join((purpose, *map(str, parts)))


def hold(db, purpose, *parts):
    """Wait for the lock `purpose:parts...` and hold it until the transaction of `db` (a session or a
    connection) ends."""
    db.execute(_HOLD, {"name": lock_name(purpose, *parts)})
