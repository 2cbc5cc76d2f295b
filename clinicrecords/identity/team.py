"""A team's lifecycle, the same rules for a workspace's members and a clinic's staff (decision 0094): an
owner (a clinic's admin) changes a person's roles or removes them, a person leaves, a place always keeps one
who manages it (a workspace an owner, a clinic an admin), and a closing workspace's members all go. Each change
is audited; the person affected is mailed, told who did it (never the one who acted on themselves).

Every rule reads the place's memberships locked (`lock_workspace_members`, `lock_staff`), so two owners
demoting each other at once leave one of them owner."""

from dataclasses import dataclass

from zope.interface import implementer

from clinicrecords.errors import FieldErrors
from clinicrecords.identity.interfaces import (IAccountService, IAuditTrail, IInvitationService, IMembershipService,
                                               ITeamService)
from clinicrecords.identity.invitations import KINDS, roles_asked, roles_text
from clinicrecords.mail.interfaces import IMail


@dataclass(frozen=True)
class _Rules:
    """What differs between a workspace's team and a clinic's staff."""

    keeper: str             # the role a place always keeps someone in
    prefix: str             # of the audit's actions
    not_there: str
    last_keeper: str
    only_keeper_leaving: str


RULES = {
    "workspace": _Rules("owner", "member", "This person is not a member of the workspace",
                        "A workspace keeps at least one owner: make another member owner first",
                        "You are the workspace's only owner: make another member owner first, or close the "
                        "workspace"),
    "clinic": _Rules("admin", "staff", "This person is not on the clinic's staff",
                     "A clinic keeps at least one admin: make another staff member admin first",
                     "You are the clinic's only admin: make another staff member admin first"),
}


@dataclass(frozen=True)
class TeamMember:
    account_id: object
    email: str
    roles: tuple
    created_at: object

    @property
    def role(self):
        return self.roles[0]


@implementer(ITeamService)
class TeamService:
    def __init__(self, db, audit, accounts, memberships, invitations, mail):
        self.db = db
        self.audit = audit
        self.accounts = accounts
        self.memberships = memberships
        self.invitations = invitations
        self.mail = mail

    def members(self, place):
        if place.kind == "workspace":
            return [TeamMember(row.account_id, row.email, (row.role,), row.created_at)
                    for row in self.memberships.workspace_members(place.id)]
        return [TeamMember(row.account_id, row.email, tuple(row.roles), row.created_at)
                for row in self.memberships.staff_members(place.id)]

    def member(self, place, account_id):
        return next((member for member in self.members(place) if member.account_id == account_id), None)

    def _locked(self, place):
        if place.kind == "workspace":
            return {account_id: (role,) for account_id, role in
                    self.memberships.lock_workspace_members(place.id).items()}
        return self.memberships.lock_staff(place.id)

    def _keepers_without(self, place, team, account_id):
        keeper = RULES[place.kind].keeper
        return [other for other, roles in team.items() if other != account_id and keeper in roles]

    def _audit(self, place, what, account_id, target, **details):
        self.audit.record(f"{RULES[place.kind].prefix}.{what}", account_id=account_id, target=target,
                          **KINDS[place.kind].audit_target(place.id), **details)

    def change_roles(self, place, account_id, roles, by):
        rules = RULES[place.kind]
        roles = tuple(roles_asked(KINDS[place.kind], roles))
        team = self._locked(place)
        if account_id not in team:
            raise FieldErrors("member", rules.not_there)
        before = team[account_id]
        if roles == before:
            return before
        if rules.keeper in before and rules.keeper not in roles and not self._keepers_without(place, team, account_id):
            raise FieldErrors("role", rules.last_keeper)
        if place.kind == "workspace":
            self.memberships.set_workspace_role(place.id, account_id, roles[0])
        else:
            self.memberships.set_staff_roles(place.id, account_id, roles)
        emails = self.accounts.emails([account_id, by])
        email = emails[account_id]
        self._audit(place, "role_changed", by, email, before=list(before), after=list(roles))
        if account_id != by:
            self.mail.send("team_role_changed", email, regarding=place.regarding, joining=place.joining,
                           roles=roles_text(roles), before=roles_text(before), by=emails[by],
                           made_owner=place.kind == "workspace" and roles == ("owner",))
        return roles

    def remove(self, place, account_id, by):
        rules = RULES[place.kind]
        if account_id == by:
            raise FieldErrors("member", "To take yourself off, use “Leave”")
        team = self._locked(place)
        if account_id not in team:
            raise FieldErrors("member", rules.not_there)
        if rules.keeper in team[account_id] and not self._keepers_without(place, team, account_id):
            raise FieldErrors("member", rules.last_keeper)
        emails = self.accounts.emails([account_id, by])
        email = emails[account_id]
        self._take_off(place, account_id)
        self._audit(place, "removed", by, email, roles=list(team[account_id]))
        self.mail.send("team_removed", email, regarding=place.regarding, joining=place.joining, by=emails[by])

    def leave_refusal(self, place, account_id):
        rules = RULES[place.kind]
        team = {member.account_id: member.roles for member in self.members(place)}
        return self._leave_refused(rules, place, team, account_id)

    def _leave_refused(self, rules, place, team, account_id):
        if account_id not in team:
            return rules.not_there
        if rules.keeper in team[account_id] and not self._keepers_without(place, team, account_id):
            return rules.only_keeper_leaving
        return None

    def leave(self, place, account_id):
        rules = RULES[place.kind]
        team = self._locked(place)
        refused = self._leave_refused(rules, place, team, account_id)
        if refused:
            raise FieldErrors("leave", refused)
        email = self.accounts.emails([account_id])[account_id]
        self._take_off(place, account_id)
        self._audit(place, "left", account_id, email, roles=list(team[account_id]))

    def _take_off(self, place, account_id):
        if place.kind == "workspace":
            self.memberships.remove_workspace_member(place.id, account_id)
        else:
            self.memberships.remove_staff_member(place.id, account_id)

    def dissolve(self, place, by):
        team = self._locked(place)
        for invitation in self.invitations.pending(place.kind, place.id):
            self.invitations.cancel(place, invitation.id, by)
        emails = self.accounts.emails(team)
        for account_id in team:
            self._take_off(place, account_id)
            self.mail.send("workspace_closed", emails[account_id], regarding=place.regarding, name=place.name,
                           closed_by=emails.get(by) or "an operator")
        return emails


def team_service_factory(context, request):
    return TeamService(request.db, request.find_service(IAuditTrail), request.find_service(IAccountService),
                       request.find_service(IMembershipService), request.find_service(IInvitationService),
                       request.find_service(IMail))
