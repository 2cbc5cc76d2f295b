from pyramid.view import view_config

from clinicrecords.portal.developer.profile.forms import ProfileForm
from clinicrecords.portal.developer.profile.interfaces import IProfilePages
from clinicrecords.portal.developer.profile.resources import ProfilePage
from clinicrecords.portal.web.forms import FormError, rerender, see_other
from clinicrecords.portal.web.resources import MEMBER, OWNER

T = "clinicrecords.portal.developer.profile:templates/"


def _page(context, request, form=None):
    pages = request.find_service(IProfilePages)
    profile = pages.profile(context.workspace.id)
    return {"profile": profile, "submittable": pages.submittable(context.workspace.id),
            "form": form or ProfileForm.of(profile),
            "elsewhere": pages.website_elsewhere(context.workspace.id, profile)}


@view_config(route_name="portal", context=ProfilePage, request_method="GET", renderer=T + "profile.jinja2",
             permission=MEMBER)
def profile_page(context, request):
    return _page(context, request)


@view_config(route_name="portal", context=ProfilePage, request_method="POST", renderer=T + "profile.jinja2",
             permission=OWNER)
def submit_profile(context, request):
    form = ProfileForm(request.POST)
    try:
        request.find_service(IProfilePages).submit(context.workspace.id, form.data,
                                                   request.identity.account_id)
    except FormError as exc:
        form.refused(exc)
        return rerender(request, **_page(context, request, form))
    return see_other(request, "workspaces", context.workspace.id, "profile", submitted=1)
