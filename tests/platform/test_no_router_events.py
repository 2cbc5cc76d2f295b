"""The router notifies no event (docs/decisions/0168-no-router-events.md): nothing is registered as a Pyramid
subscriber, so no request pays for four notifications; domain events keep listeners of their own."""

from dataclasses import dataclass

from pyramid.config import Configurator

from clinicrecords.publishing import listen, publish_in


def test_the_application_registers_no_subscriber(app):
    assert list(app.registry.registeredHandlers()) == []
    assert not app.registry.has_listeners


@dataclass(frozen=True)
class Moment:
    name: str


@dataclass(frozen=True)
class LaterMoment(Moment):
    pass


def test_a_published_moment_reaches_its_class_listeners_then_its_bases_in_the_order_they_listened():
    config = Configurator()
    heard = []
    listen(config, LaterMoment, lambda event, place: heard.append(("later", event.name, place.db)))
    listen(config, Moment, lambda event, place: heard.append(("first", event.name, place.db)))
    listen(config, Moment, lambda event, place: heard.append(("second", event.name, place.db)))

    publish_in(config.registry, "session", LaterMoment("a"), enqueue=heard.append)
    publish_in(config.registry, "session", Moment("b"), enqueue=heard.append)

    assert heard == [("later", "a", "session"), ("first", "a", "session"), ("second", "a", "session"),
                     ("first", "b", "session"), ("second", "b", "session")]
    assert not config.registry.has_listeners


def test_a_moment_is_not_told_to_the_listeners_of_its_subclasses():
    config = Configurator()
    heard = []
    listen(config, LaterMoment, lambda event, place: heard.append(event))

    publish_in(config.registry, None, Moment("alone"), enqueue=heard.append)

    assert heard == []
