from pyramid.decorator import reify

from clinicrecords.identity.services import IInvitationService
from clinicrecords.portal.web.resources import Node


class InvitationGone(Exception):
    """The link's invitation is not open: `state` is "used", "cancelled" or "expired", None for a token no
    invitation has. Its page says which (`pages.py`), as a reset link's does."""

    def __init__(self, state):
        super().__init__(state)
        self.state = state


class InvitationLink(Node):
    """An invitation link's page, `?token=…`: the token is in the query string, which the request log never
    writes (a path would be logged). A face sets `kind` (the identity context's: "workspace", "clinic"),
    `joining` (the words before the target's name: "the workspace", "the staff of") and `join_words` (the
    button), and says the target's name (`target_name`) and where a new member lands (`joined_path`)."""

    public = True
    brand = None  # the masthead's words, where they are not the developer portal's
    # A person new to the portal sets a password on the page (the staff's links; a workspace's asks for an
    # account first).
    sets_password = False

    @property
    def token(self):
        return self.request.params.get("token", "")

    def url(self):
        return self.request.portal_url(self.__name__, token=self.token)

    def wrong_account(self):
        """What is wrong with the signed-in account for this link (a face's link may be for another kind of
        account), or None; the page then offers to log out and come back."""
        return None

    @reify
    def invitation(self):
        invitations = self.request.find_service(IInvitationService)
        invitation = invitations.invitation(self.token, self.kind)
        if invitation is None:
            raise InvitationGone(invitations.link_state(self.token, self.kind))
        return invitation
