from zope.interface import Attribute, Interface


class IWebhookPages(Interface):
    """Webhook endpoints as the portal's pages manage them, a workspace's or a clinic's own (the `Owner`): the
    events package's services with the form's input parsed, refusals as FormError by field, and every action
    audited with the account and the owner. `endpoint` is the endpoint as the events service answers it."""

    event_types = Attribute("the known event type names, for the form's choices")

    def list(owner, mode):
        """The owner's endpoints of a mode (a clinic's: live only; an unknown mode: the first)."""

    def add(owner, mode, url, chosen_types, account_id):
        """The new endpoint; a face with one mode needs none chosen."""

    def reveal_secret(owner, endpoint, account_id):
        """The current signing secret, opened on demand (audited)."""

    def rotate_secret(owner, endpoint, overlap_choice, account_id):
        """(endpoint, new secret); the previous secret keeps signing too until the overlap ends."""

    def disable(owner, endpoint, account_id):
        """Stop sending; the endpoint."""

    def enable(owner, endpoint, account_id):
        """Resume sending; the endpoint."""

    def delete(owner, endpoint, account_id):
        """The endpoint, its secrets and its deliveries."""

    def send_test(owner, endpoint, account_id):
        """The receiver's answer (status_code, duration_ms, the first 1 KiB, error)."""

    def log(owner, endpoint, status, starting_after):
        """A page of deliveries; an unknown status filter or cursor shows the newest deliveries instead."""

    def resend(owner, endpoint, delivery_id, account_id):
        """Send one earlier delivery again as a new one."""

    def recover(owner, endpoint, since_text, account_id):
        """The number of events queued again since the time entered."""
