from zope.interface import Interface


class IWebhookPages(Interface):
    """Webhook endpoints as the portal's pages manage them, a workspace's or a clinic's own (the `Owner`): the
    events package's services with the form's input parsed, refusals as FormError by field, and every action
    audited with the account and the owner."""
