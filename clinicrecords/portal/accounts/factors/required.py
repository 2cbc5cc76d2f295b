"""Who must have a second factor (decision 0098), checked for every portal view so none can forget it: a
node of the page's lineage says why one is needed (`second_factor_required`: "patient_data" on the console's
pages that show patient data, in every clinic; "workspace" on a workspace whose owner requires one). A signed-in
person without a factor is led to the two-factor page, which says why and comes back here once one is set up:
never refused without a way forward."""

from pyramid.httpexceptions import HTTPSeeOther
from pyramid.location import lineage

from clinicrecords.identity.services import IFactorService


def required_reason(context):
    """Why the page needs its visitor to have a second factor ("patient_data", "workspace"), or None."""
    for node in lineage(context):
        reason = getattr(node, "second_factor_required", None)
        if reason:
            return reason
    return None


def second_factor_deriver(view, info):
    """After the permission check (the page is the visitor's to see), before the view."""
    if info.exception_only or info.options.get("route_name") != "portal":
        return view

    def guarded_view(context, request):
        # The page's reason first: a page without one (the stylesheet, the log-in page) reads no session for it.
        reason = required_reason(context)
        identity = request.identity if reason else None
        if identity is not None and not request.find_service(IFactorService).has_second_factor(identity.account_id):
            back = request.path_qs if request.method in ("GET", "HEAD") else None
            return HTTPSeeOther(request.portal_url("account", "two-factor", required=reason, next=back))
        return view(context, request)

    return guarded_view
