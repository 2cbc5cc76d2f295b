"""The key pages both faces show, written once: a key created or rolled (its secret, once), revoke, roll, IP
allow-list. Each face keeps its own list and creation page (a workspace's keys have modes, scopes and the
live-key checklist; a clinic's are always live) and hangs these on its keys area with `add_key_pages`
(`pages.py`); the area and its key pages are `KeysArea` and `KeyPage` (`resources.py`)."""

from clinicrecords.portal.keys.pages import add_key_pages

__all__ = ["add_key_pages"]
