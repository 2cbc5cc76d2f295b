"""What the shared team pages know of their face: the `Place` (`place`: the identity context's kind, id and
name), whether the signed-in person manages it (`manages`), where the pages are (`path`), the layout and tab,
the role choices, and how the face speaks of its people."""

import uuid

from clinicrecords.identity.services import ITeamService


class TeamArea:
    """…/members or …/staff; `…/{account_id}` is one person there (the face's `item_resource`, a
    `TeamMemberPage`). A face sets `layout`, `section`, `words` (a `TeamWords`), `role_options` (value,
    label, description), `invite_role` (the form's default), `link_page` (the invitation link's page) and the
    properties `place`, `manages` and `path`."""

    item_parameter = "account_id"
    service = ITeamService

    def url(self, *segments, **query):
        return self.request.portal_url(*self.path, *segments, **query)

    def __getitem__(self, name):
        # Anything but a member's id is a view's name (invite, leave, cancel-invitation).
        try:
            account_id = uuid.UUID(name)
        except ValueError:
            raise KeyError(name) from None
        member = self.request.find_service(self.service).member(self.place, account_id)
        if member is None:
            raise KeyError(name)
        return self.item_resource(self, name, member)


class TeamMemberPage:
    """…/{account_id}: one person of the area's team (mixed into a face's node class)."""

    def __init__(self, parent, name, member):
        super().__init__(parent, name)
        self.member = member
        self.area = parent

    @property
    def layout(self):
        return self.area.layout

    @property
    def section(self):
        return self.area.section

    def url(self, *segments, **query):
        return self.area.url(self.__name__, *segments, **query)


class TeamWords:
    """How a face speaks of its team: its page's title ("Members"), one person ("member"), where they are
    ("the workspace"), and what leaving ends."""

    def __init__(self, title, person, where, since):
        self.title, self.person, self.where, self.since = title, person, where, since
