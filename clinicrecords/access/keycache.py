"""The in-process key cache (decision 0036): what the key-and-reach statement returned for (key id, clinic) (a
`KeyRead`: the identity and what it found of the clinic), kept per application and used only while it is still
true.

An entry is trusted on a request only when all of these hold on that request:
- the secret sent matches the cached hash (checked every time: "valid" is never cached without it);
- the key and the connection have not expired by now (compared with the clock every time);
- the address is allowed by the cached IP list;
- the reach version the rate limiter reads in its own round trip equals the version the entry was read with
  (the triggers of alembic/control c22_reach_version increment it on every change to keys, workspaces,
  connections and clinics). A different version makes the gate drop the entry and read the key again.
Anything else (a wrong secret, a revoked or expired key, a refused address) is decided by the statement, never
by the cache: the cache can only ever let through what the database would let through at the same version.
"""

import threading
from dataclasses import dataclass

from clinicrecords.access.keys import secret_matches
from clinicrecords.settings import AccessSettings

DEFAULT_SIZE = AccessSettings.key_cache_size
# The process's KeyCache, kept in the registry by clinicrecords.access.
KEY_CACHE = "access.key_cache"


class StaleKey(Exception):
    """The reach version moved since the cached identity was read: nothing was counted, read the key again."""


@dataclass(frozen=True)
class CachedKey:
    secret_hash: bytes
    read: object  # KeyRead whose identity has `cached_at_version` set


class KeyCache:
    """Bounded (oldest entry out first) and safe for waitress's threads: writers hold a lock; a read is one
    dict lookup, atomic in CPython."""

    def __init__(self, size=DEFAULT_SIZE):
        self.size = size
        self._entries = {}
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._entries)

    def usable(self, pepper, parsed, clinic_id, now, address):
        """The cached `KeyRead` for this key and clinic if every per-request check passes, else None (then
        the statement decides). The version is checked afterwards, by the rate limiter's round trip."""
        entry = self._entries.get((parsed.key_id, clinic_id))
        if entry is None:
            return None
        read = entry.read
        identity = read.identity
        if not secret_matches(pepper, parsed.secret, entry.secret_hash) or identity.mode != parsed.mode:
            return None
        if identity.expires_at is not None and identity.expires_at <= now:
            return None
        found = read.found
        if found is not None and found.connection_expires_at is not None and found.connection_expires_at <= now:
            return None
        if not identity.ip_allowed(address):
            return None
        return read

    def put(self, key_id, clinic_id, secret_hash, read):
        if self.size <= 0:
            return
        with self._lock:
            held = self._entries.pop((key_id, clinic_id), None)
            if held is not None and held.read.identity.cached_at_version > read.identity.cached_at_version:
                read, secret_hash = held.read, held.secret_hash  # a slower thread's older read
            while len(self._entries) >= self.size:
                self._entries.pop(next(iter(self._entries)))
            self._entries[(key_id, clinic_id)] = CachedKey(secret_hash, read)

    def clear(self):
        with self._lock:
            self._entries.clear()

    def drop(self, key_id, clinic_id):
        with self._lock:
            self._entries.pop((key_id, clinic_id), None)
