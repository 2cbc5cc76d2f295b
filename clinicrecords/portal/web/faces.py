"""The portal's two faces, the developer portal and a clinic's console: the brand a page wears and the home it
leads back to. Pages say theirs through their layout; error pages, which belong to no area, ask `face_of`.

A signed-in account has one face: staff accounts work only in the console, developers only in the portal, so
the account decides. Before sign-in (an invitation link, a mistyped address) the page's own place in the tree
decides: a node of the console says so with `face = CLINIC_CONSOLE`."""

import logging
from dataclasses import dataclass

from pyramid.location import lineage

from clinicrecords.portal.web.security import is_staff

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Face:
    brand: str          # beside "Clinic Records" in the masthead
    home_label: str     # the error page's way back
    offers_sign_up: bool  # the masthead's "Sign up" (a developer's account; staff join by their link only)


DEVELOPER_PORTAL = Face("developer portal", "Go to your workspaces", True)
CLINIC_CONSOLE = Face("clinic console", "Go to the clinic console", False)


def _context(request):
    return getattr(request, "context", None)


def _by_place(context):
    for node in lineage(context) if context is not None else ():
        face = getattr(node, "face", None)
        if face is not None:
            return face
    return DEVELOPER_PORTAL


def _by_account(request):
    identity = request.identity
    if identity is None:
        return None
    return CLINIC_CONSOLE if is_staff(request, identity) else DEVELOPER_PORTAL


def portal_face(request):
    """The face whose brand the masthead wears when a page names none (pages both faces show: the account's
    own pages, the team and webhook pages); `request.portal_face`."""
    return face_of(request)[0]


def face_of(request):
    """(the face, its home's URL) for the page answering `request`. Never raises: an error page asks it while
    the request is failing (a broken transaction, say), and then the page's place alone decides."""
    context = _context(request)
    try:
        face = _by_account(request) or _by_place(context)
    except Exception:
        log.warning("face of portal request %s decided by its place alone", request.request_id, exc_info=True)
        face = _by_place(context)
    home = getattr(context, "home_url", None) if face is CLINIC_CONSOLE else None
    return face, home or request.portal_url("")
