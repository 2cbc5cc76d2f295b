"""The portal's layout names its parts (decision 0087): every page's view and resource lies in the shared
parts (`web`, `accounts`), one of the two faces (`developer`, rooted at /workspaces; `console`, rooted at
/clinics) or the pages both faces show, written once (`webhooks`, `clinic_connections`, `keys`,
`invitations`, `team`); the console's root is the `console` package, not its staff area; and a key page or the
invitation link's page both faces show is one view and one template, registered on each face (the twin copies
are gone)."""

from pathlib import Path

import pytest

from clinicrecords.api.route_table import route_table
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import with_workspace

PORTAL = Path(__file__).resolve().parents[2] / "clinicrecords" / "portal"
SHARED = ("web", "accounts")
BOTH_FACES = ("webhooks", "clinic_connections", "keys", "invitations", "team")
FACES = {"/portal/workspaces": "developer", "/portal/invitations": "developer", "/portal/clinics": "console",
         "/portal/staff-invitations": "console"}


@pytest.fixture(scope="module")
def portal_routes(app):
    return [route for route in route_table(app.registry) if route.path.startswith("/portal/")]


def _part(dotted):
    return dotted.split(".")[2]


def test_every_page_lies_in_a_named_part(portal_routes):
    parts = {_part(route.view) for route in portal_routes} | {_part(route.resource) for route in portal_routes}
    assert parts <= {*SHARED, "developer", "console", *BOTH_FACES}
    assert {"developer", "console"} <= parts


@pytest.mark.parametrize("prefix, face", FACES.items())
def test_each_face_s_pages_are_its_own_or_written_once_for_both(portal_routes, prefix, face):
    under = [route for route in portal_routes if route.path == prefix or route.path.startswith(prefix + "/")]
    assert under
    for route in under:
        assert _part(route.view) in (face, *BOTH_FACES), route
    other = "console" if face == "developer" else "developer"
    assert not [route for route in under if _part(route.view) == other]


def test_the_console_s_root_is_the_console_package(portal_routes):
    root_paths = ("/portal/clinics", "/portal/clinics/{clinic_id}", "/portal/clinics/{clinic_id}/activity")
    roots = {route.view for route in portal_routes if route.path in root_paths}
    assert roots and all(view.startswith("clinicrecords.portal.console.views.") for view in roots)
    assert not (PORTAL / "staff").exists()
    assert "class ClinicsCollection" not in (PORTAL / "console" / "staff" / "resources.py").read_text()


@pytest.mark.parametrize("page", ["created", "{key_id}/revoke", "{key_id}/roll", "{key_id}/ip-allow"])
def test_a_key_page_both_faces_show_is_one_view(portal_routes, page):
    views = {}
    for route in portal_routes:
        for face, prefix in (("developer", "/portal/workspaces/{workspace_id}/keys/"),
                             ("console", "/portal/clinics/{clinic_id}/keys/")):
            if route.path == prefix + page:
                views.setdefault(route.method, {})[face] = route.view
    assert views and all(set(faces) == {"developer", "console"} for faces in views.values())
    for faces in views.values():
        assert faces["developer"] == faces["console"]
        assert faces["developer"].startswith("clinicrecords.portal.keys.pages.")


def test_the_key_templates_exist_once():
    shared = {path.name for path in (PORTAL / "keys" / "templates").glob("*.jinja2")}
    assert shared == {"created.jinja2", "revoke.jinja2", "roll.jinja2", "ip_allow.jinja2"}
    for face in ("developer", "console"):
        assert not shared & {path.name for path in (PORTAL / face / "keys" / "templates").glob("*.jinja2")}


def test_the_invitation_link_s_page_is_one_view_for_both_faces(portal_routes):
    views = {(route.method, route.path): route.view for route in portal_routes
             if route.path in ("/portal/invitations", "/portal/staff-invitations")}
    for method in ("GET", "POST"):
        assert views[(method, "/portal/invitations")] == views[(method, "/portal/staff-invitations")]
        assert views[(method, "/portal/invitations")].startswith("clinicrecords.portal.invitations.pages.")
    assert [path.name for path in PORTAL.rglob("*.jinja2") if path.name in ("invitation.jinja2", "join.jinja2")] \
        == ["invitation.jinja2"]


@pytest.mark.parametrize("page", ["", "/invite", "/cancel-invitation", "/leave", "/{account_id}",
                                  "/{account_id}/roles", "/{account_id}/remove"])
def test_a_team_page_is_one_view_for_both_faces(portal_routes, page):
    """The team pages (decision 0094): the members and staff pages (invite, cancel, leave, roles, remove) are one
    piece of code, registered on each face."""
    views = {}
    for route in portal_routes:
        for face, prefix in (("developer", "/portal/workspaces/{workspace_id}/members"),
                             ("console", "/portal/clinics/{clinic_id}/staff")):
            if route.path == prefix + page:
                views.setdefault(route.method, {})[face] = route.view
    assert views and all(set(faces) == {"developer", "console"} for faces in views.values())
    for faces in views.values():
        assert faces["developer"] == faces["console"]
        assert faces["developer"].startswith("clinicrecords.portal.team.pages.")


@pytest.mark.parametrize("page", ["/portal/account/password", "/portal/account/two-factor",
                                  "/portal/account/sessions", "/portal/account/notifications"])
def test_the_account_s_own_pages_wear_the_face_of_the_signed_in_person(app, world, page):
    """Pages every signed-in person has (their password, factors, sessions, notifications) belong to no face's
    area: the masthead names the person's own, the clinic console for staff, the developer portal for partners."""
    staff, _ = staff_browser(app, world.clinic(), second_factor=False)
    partner, _ = with_workspace(app)
    assert _brand(staff.get(page)) == "clinic console"
    assert _brand(partner.get(page)) == "developer portal"


def _brand(page):
    return page.html.select_one("a.brand span").get_text(strip=True)
