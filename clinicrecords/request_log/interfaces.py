from zope.interface import Interface


class IRequestLog(Interface):
    def search(owner_id, key_id=None, status=None, request_id=None, before=None, limit=50):
        """A page of the owner's requests of the last 7 days, newest first (`RequestPage`); `before` is a
        page's `next_before`."""
