"""What other contexts may know of a clinic request: its scope, built once by traversal."""

from zope.interface import Attribute, Interface


class IClinicScope(Interface):
    """Everything a request under `/v1/clinics/{clinic_id}` acts with, built once when traversal reaches the
    clinic: services take this (or a plain object with the same attributes), never the request."""

    identity = Attribute("the calling key (clinicrecords.access.identity.Identity)")
    clinic = Attribute("the clinic's control row, in the key's reach")
    granted = Attribute("frozenset of the permission names the clinic granted this key")
    db = Attribute("the request's session, bound to the clinic's schema for its transaction")
    clinic_id = Attribute("the clinic's id as a value: readable after the transaction too")


class IClinicContext(Interface):
    """A traversal node that holds the clinic's scope: the clinic resource."""

    scope = Attribute("the request's IClinicScope, built once when traversal reached the clinic")


_holds_scope = IClinicContext.providedBy
_UNSEEN = object()


def clinic_scope(context):
    """The scope of the clinic a resource hangs under, or None outside `/v1/clinics/{clinic_id}`."""
    # A keyed request asks this of its context several times (the permission, the audit, the request log): the
    # walk's answer is kept on the node, whose place in the tree never changes.
    found = getattr(context, "_clinic_scope", _UNSEEN)
    if found is not _UNSEEN:
        return found
    found, node = None, context
    while node is not None:
        if _holds_scope(node):
            found = node.scope
            break
        node = getattr(node, "__parent__", None)
    try:
        context._clinic_scope = found
    except AttributeError:  # None, or a context that takes no attribute of ours
        pass
    return found
