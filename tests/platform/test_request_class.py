"""Every request of the application is made of one class, which holds the contexts' request methods and
properties: Pyramid makes no class per request."""

from pyramid.config import Configurator
from pyramid.interfaces import IRequestExtensions
from pyramid.request import Request

from clinicrecords import ClinicRecordsRequest
from clinicrecords.request_class import fold_request_extensions, request_factory


def _made(app, path="/v1/me"):
    with app.request_context(Request.blank(path).environ) as request:
        return request


def test_every_request_is_made_of_the_one_folded_class(app):
    first, second = _made(app), _made(app, "/portal/")
    assert type(first) is type(second) is request_factory(app.registry)
    assert issubclass(type(first), ClinicRecordsRequest) and type(first) is not ClinicRecordsRequest


def test_the_folded_class_holds_every_context_s_request_methods_and_properties(app):
    folded = vars(request_factory(app.registry))
    for name in ("db", "tm", "request_id", "json_object", "find_service", "enqueue", "csrf_token", "portal_url"):
        assert name in folded, name
    extensions = app.registry.queryUtility(IRequestExtensions)
    assert not extensions.methods and not extensions.descriptors


def test_a_folded_property_is_still_the_request_s_own(app):
    first, second = _made(app), _made(app)
    assert first.request_id == first.request_id != second.request_id
    assert first.find_service.__self__ is first


def test_nothing_to_fold_leaves_the_factory_as_it_was():
    config = Configurator(request_factory=ClinicRecordsRequest)
    config.commit()
    assert fold_request_extensions(config.registry) is ClinicRecordsRequest
