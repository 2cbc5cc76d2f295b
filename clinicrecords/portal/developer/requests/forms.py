"""The request log's filter: a GET form, so a filtered page is a link one can share within the workspace."""

from clinicrecords.portal.web.forms import Form, FormError

MAX_REQUEST_ID = 40
BAD_REQUEST_ID = "Enter a request id as the X-Request-Id header gave it, such as req_7d08…"


class RequestFilter(Form):
    fields = ("key", "status", "request_id", "before")

    def search_arguments(self, key_ids):
        """IRequestLog.search's filters from the form; FormError naming every bad field. `key_ids`: the
        workspace's keys the filter may name."""
        errors, found = {}, {}
        key = self.text("key")
        if key:
            if key not in key_ids:
                errors["key"] = "Choose one of the workspace's keys"
            found["key_id"] = key
        status = self.text("status")
        if status:
            if not (status.isdigit() and 100 <= int(status) <= 599):
                errors["status"] = "Enter an HTTP status from 100 to 599, such as 404"
            else:
                found["status"] = int(status)
        request_id = self.text("request_id")
        if request_id:
            if len(request_id) > MAX_REQUEST_ID or not request_id.isascii() or not request_id.isprintable():
                errors["request_id"] = BAD_REQUEST_ID
            found["request_id"] = request_id
        if self.text("before"):
            found["before"] = self.text("before")
        if errors:
            raise FormError(errors=errors)
        return found

    def query(self, **changes):
        """The filter's values as a query string's parameters (for the paging links)."""
        shown = {name: self.shown(name) for name in self.fields}
        return {name: value for name, value in {**shown, **changes}.items() if value}
