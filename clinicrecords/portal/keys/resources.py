"""What the shared key pages know of their face: whose keys (`owner_id`), which service manages them
(`service`: the face's, with `key`, `rolled`, `revoke`, `roll`, `set_ip_allow` taking the owner's id first),
where the pages are (`path`, `url`), the layout they sit in, and how the face speaks of its keys."""


class KeysArea:
    """…/keys/{key_id}: only the owner's unrevoked keys exist here. A face sets `service`, `item_resource`,
    `layout`, `owner_words` ("Your", "The clinic's") and the properties `owner_id` and `path`."""

    item_parameter = "key_id"

    def url(self, *segments, **query):
        return self.request.portal_url(*self.path, *segments, **query)

    def __getitem__(self, key_id):
        key = self.request.find_service(self.service).key(self.owner_id, key_id)
        if key is None:
            raise KeyError(key_id)
        return self.item_resource(self, key_id, key)


class KeyPage:
    """…/keys/{key_id}: one key of the area's owner."""

    def __init__(self, parent, name, key):
        super().__init__(parent, name)
        self.key = key
        self.area = parent

    def url(self, *segments, **query):
        return self.area.url(*segments, **query)

    @property
    def layout(self):
        return self.area.layout
