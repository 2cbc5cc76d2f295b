"""Which of a resource's views answers a request, found without an exception.

Views of one context and name that differ by predicates (an item's GET and PATCH, a collection's GET and POST)
are one Pyramid MultiView, which calls each in turn and learns that one does not fit from the PredicateMismatch
it raises: an HTTPNotFound answer built and thrown away. Views are tried in the order Pyramid's scan found them
(by name), so every GET of an item paid for its PATCH view first and every POST for its collection's GET. Here
each view's predicates are asked first, as Pyramid's own `MultiView.match` asks them, and only a view that fits
is called; what it answers, and what happens when none fits, are unchanged.
"""

from pyramid.config.views import MultiView
from pyramid.exceptions import PredicateMismatch
from pyramid.interfaces import IMultiView


class PredicatesFirstMultiView(MultiView):
    def __call__(self, context, request):
        for _, view, _ in self.get_views(request):
            fits = getattr(view, "__predicated__", None)
            if fits is not None and not fits(context, request):
                continue
            try:
                return view(context, request)
            except PredicateMismatch:  # raised by the view itself: Pyramid's MultiView goes on to the next
                continue
        raise PredicateMismatch(self.name)


def ask_predicates_first(registry):
    for registration in registry.registeredAdapters():
        # Pyramid builds its MultiViews itself, with no setting for their class: each one made is given this one.
        if registration.provided is IMultiView and type(registration.factory) is MultiView:
            registration.factory.__class__ = PredicatesFirstMultiView


def includeme(config):
    # After every view is registered: a MultiView is made when a second view joins a context and name.
    config.action(None, lambda: ask_predicates_first(config.registry), order=10)
