from pyramid.view import view_config

from clinicrecords.access.interfaces import Permission
from clinicrecords.api.representations import render_page
from clinicrecords.dispensing.interfaces import IDispensingFlags
from clinicrecords.dispensing.resources import DispensingFlagCollection
from clinicrecords.dispensing.schemas import DispensingFlagQuery


@view_config(context=DispensingFlagCollection, request_method="GET", permission=Permission.DispensingRead,
             query_schema=DispensingFlagQuery,
             openapi={"summary": "List dispensing flags of the caller's enrolled patients",
                      "kind": "dispensing_flag", "many": True})
def list_dispensing_flags(context, request):
    page = request.find_service(IDispensingFlags).list(request.query)
    return render_page(request, "dispensing_flag", page)
