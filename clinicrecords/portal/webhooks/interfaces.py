from zope.interface import Interface


class IWebhookPages(Interface):
    """A workspace's webhook endpoints as its members manage them in the portal: the events package's
    services with the form's input parsed, refusals as FormError by field, and every action audited."""
