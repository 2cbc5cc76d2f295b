from clinicrecords.portal.console.queue.services import Filters
from clinicrecords.portal.web.forms import Form


class DeclineForm(Form):
    fields = ("reason",)


class AcceptForm(Form):
    fields = ("decision", "seen")  # seen: the content hash of the submission the page showed


class ReviewForm(Form):
    fields = ("kind", "item_id")


class QueueFilter(Form):
    """The queue's filter: a GET form."""

    fields = ("kind", "patient", "sender")

    def filters(self):
        return Filters(kind=self.text("kind"), patient=self.text("patient")[:200], sender=self.text("sender"))
