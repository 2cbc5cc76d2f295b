from clinicrecords.portal.queue.services import Filters
from clinicrecords.portal.web.forms import Form


class DeclineForm(Form):
    fields = ("reason",)


class AcceptForm(Form):
    fields = ("decision", "seen")  # seen: the content hash of the submission the page showed


class ReviewForm(Form):
    fields = ("kind", "item_id")


def filters_from(params):
    return Filters(kind=(params.get("kind") or "").strip(),
                   patient=(params.get("patient") or "").strip()[:200],
                   sender=(params.get("sender") or "").strip())
