"""The notifications people can turn on or off, each sent to one role of a workspace or a clinic. Security
notices (a password changed, a factor removed) are not among them: nobody can turn those off."""

from dataclasses import dataclass

WORKSPACE, CLINIC = "workspace", "clinic"  # the face a person works in: a partner's workspace, a clinic's staff


@dataclass(frozen=True)
class Kind:
    name: str       # as stored and as the settings form posts it
    label: str      # the checkbox's label
    hint: str       # who gets it, and when
    faces: tuple    # WORKSPACE and/or CLINIC: whose settings page offers it


CONNECTION_REQUESTED = Kind("connection_requested", "A connection request waits",
                            "Sent to the clinic's admins when an organization asks to connect.", (CLINIC,))
CONNECTION_CHANGED = Kind("connection_changed", "A clinic approves, narrows or revokes a connection",
                          "Sent to the workspace's owners.", (WORKSPACE,))
PROFILE_REVIEWED = Kind("profile_reviewed", "The business profile's review ends",
                        "Sent to the workspace's owners when the profile is approved or refused.", (WORKSPACE,))
DOMAIN_LAPSED = Kind("domain_lapsed", "The verified domain lapses",
                     "Sent to the workspace's owners when the domain's TXT record is no longer found.", (WORKSPACE,))
WEBHOOK_FAILING = Kind("webhook_failing", "A webhook endpoint starts failing",
                       "Sent to a workspace's owners or a clinic's admins at the first failure after a success, "
                       "not at every failed attempt.", (WORKSPACE, CLINIC))
WEBHOOK_DISABLED = Kind("webhook_disabled", "A webhook endpoint is disabled after failing for days",
                        "Sent to a workspace's owners or a clinic's admins.", (WORKSPACE, CLINIC))
REVIEW_DIGEST = Kind("review_digest", "Daily: submissions waiting in the review queue",
                     "Sent to the clinic's clinicians each morning while submissions wait (how many, and how long "
                     "the oldest has waited); none when the queue is empty.", (CLINIC,))

KINDS = (CONNECTION_REQUESTED, CONNECTION_CHANGED, PROFILE_REVIEWED, DOMAIN_LAPSED, WEBHOOK_FAILING,
         WEBHOOK_DISABLED, REVIEW_DIGEST)
KIND_NAMES = frozenset(kind.name for kind in KINDS)


def kinds_of(face):
    """The kinds a person of this face can receive, in the page's order."""
    return tuple(kind for kind in KINDS if face in kind.faces)
