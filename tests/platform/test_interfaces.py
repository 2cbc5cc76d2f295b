"""Every interface declares what its service offers (decision 0075): no empty markers. Each class that implements an
interface has every method it declares, with signatures that fit, and offers nothing public it does not declare,
so "go to definition" from a `find_service(IFoo)` lands on the whole contract. And every service the application
registers, looked up through a real request of the application (with a real clinic scope for the clinic's
services), provides its interface."""

import importlib
import inspect
from pathlib import Path

import pytest
from pyramid.traversal import traverse
from zope.interface import implementedBy, providedBy
from zope.interface.interface import InterfaceClass, Method
from zope.interface.verify import verifyObject

import clinicrecords
from clinicrecords.access.interfaces import ISandboxSeed
from clinicrecords.inventory.interfaces import INetworkProjection
from clinicrecords.request_class import request_factory
from clinicrecords.services import registered_services

PACKAGE = Path(clinicrecords.__file__).parent


def _modules_declaring(name):
    """Modules under clinicrecords whose text mentions `name` (importing every module would run the CLI's
    `__main__` and Alembic's env)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if name in path.read_text(encoding="utf-8"):
            yield ".".join(("clinicrecords", *path.relative_to(PACKAGE).with_suffix("").parts))


def _declared_interfaces():
    found = {}
    for module_name in _modules_declaring("Interface"):
        module = importlib.import_module(module_name)
        for value in vars(module).values():
            if isinstance(value, InterfaceClass) and value.__module__ == module_name:
                found[f"{module_name}.{value.__name__}"] = value
    return found


def _implementers():
    """Every class under clinicrecords declared to implement an interface (`@implementer`)."""
    found = []
    for module_name in _modules_declaring("implementer("):
        module = importlib.import_module(module_name)
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == module_name and list(implementedBy(value)):
                found.append(value)
    return found


INTERFACES = _declared_interfaces()
IMPLEMENTERS = _implementers()


def test_the_interfaces_are_found():
    assert {"clinicrecords.patients.interfaces.IPatientService",
            "clinicrecords.identity.interfaces.ISessionService"} <= set(INTERFACES)


@pytest.mark.parametrize("name", sorted(INTERFACES))
def test_no_interface_is_an_empty_marker(name):
    assert list(INTERFACES[name].names()), f"{name} declares no attribute or method of its own"


def _declared_names(provided):
    return {name for iface in provided.flattened() for name in iface.names(all=True)}


def _public(cls):
    return {name for name in dir(cls) if not name.startswith("_")}


@pytest.mark.parametrize("cls", IMPLEMENTERS, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_an_implementation_has_what_its_interfaces_declare_and_offers_nothing_else(cls):
    provided = implementedBy(cls)
    methods = {name for iface in provided.flattened() for name, spec in iface.namesAndDescriptions(all=True)
               if isinstance(spec, Method)}
    assert {name for name in methods if not hasattr(cls, name)} == set()
    if hasattr(cls, "__getitem__"):
        return  # a traversal node marked for find_interface (IClinicContext): the rule is for services
    assert _public(cls) <= _declared_names(provided), \
        f"public but not declared by its interface: {sorted(_public(cls) - _declared_names(provided))}"


def _request(app, path, headers=None):
    request = request_factory(app.registry).blank(path, headers=headers or {}, environ={"REMOTE_ADDR": "127.0.0.1"})
    request.registry = app.registry
    request.tm.begin()
    return request, traverse(app.root_factory(request), path)["context"]


def test_every_registered_service_provides_its_interface_in_full(app, connected):
    """The API's services on a request traversed into a clinic with its key (the key gate, the reach, the
    scope: as a request to one of its collections is before its view runs), the portal's on a portal page."""
    registered = registered_services(app.registry)
    assert len(registered) > 40
    api = _request(app, f"/v1/clinics/{connected.clinic_id}/patients", connected.headers)
    portal = _request(app, "/portal/login")
    try:
        for iface, name, _ in registered:
            request, context = portal if iface.__module__.startswith("clinicrecords.portal.") else api
            service = request.find_service(iface, context=context, name=name)
            assert iface.providedBy(service), f"{iface.__identifier__} {name!r}: {type(service)} does not say so"
            verifyObject(iface, service)  # every method declared, with a signature that fits
            assert _public(type(service)) <= _declared_names(providedBy(service))
    finally:
        api[0].tm.abort()
        portal[0].tm.abort()


def test_the_registered_utilities_provide_their_interfaces_in_full(app):
    for iface in (INetworkProjection, ISandboxSeed):
        verifyObject(iface, app.registry.getUtility(iface))
