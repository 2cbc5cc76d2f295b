"""The service lookup (clinicrecords/services.py): one instance per request, or per context object for a
factory registered for any context; built on first use, never shared between requests."""

import pytest
from pyramid.config import Configurator
from pyramid.request import apply_request_extensions
from zope.interface import Attribute, Interface

from clinicrecords import ClinicRecordsRequest


class IPerRequest(Interface):
    label = Attribute("which registration built it")


class IPerContext(Interface):
    label = Attribute("which registration built it")


class IUnregistered(Interface):
    label = Attribute("which registration built it")


SINGLETON = object()


def _registry(built):
    config = Configurator()
    config.include("clinicrecords.services")

    def factory(label):
        def build(context, request):
            built.append((label, context))
            return object()
        return build

    config.register_service_factory(factory("request"), IPerRequest)
    config.register_service_factory(factory("context"), IPerContext, context=Interface)
    config.register_service(SINGLETON, IUnregistered, name="singleton")
    config.commit()
    return config.registry


def _request(registry, context=None):
    request = ClinicRecordsRequest.blank("/")
    request.registry = registry
    apply_request_extensions(request)
    request.context = context
    return request


def test_a_service_is_built_once_per_request_and_on_first_use_only():
    built = []
    registry = _registry(built)
    request = _request(registry, context=object())
    assert built == []
    first = request.find_service(IPerRequest)
    assert request.find_service(IPerRequest, context=object()) is first  # registered for no context
    assert built == [("request", None)]
    assert _request(registry).find_service(IPerRequest) is not first


def test_a_service_for_any_context_is_built_per_context_object_with_it():
    built = []
    request = _request(_registry(built), context="the request's context")
    one, other = object(), object()
    assert request.find_service(IPerContext, context=one) is request.find_service(IPerContext, context=one)
    assert request.find_service(IPerContext, context=other) is not request.find_service(IPerContext, context=one)
    request.find_service(IPerContext)
    assert built == [("context", one), ("context", other), ("context", "the request's context")]


def test_names_singletons_and_unknown_services():
    request = _request(_registry([]))
    assert request.find_service(IUnregistered, name="singleton") is SINGLETON
    with pytest.raises(LookupError):
        request.find_service(IUnregistered)
    with pytest.raises(LookupError):
        request.find_service(IPerRequest, name="other")


def test_only_any_context_or_none_can_be_registered():
    config = Configurator()
    config.include("clinicrecords.services")
    with pytest.raises(ValueError):
        config.register_service_factory(lambda context, request: None, IPerRequest, context=IPerContext)
