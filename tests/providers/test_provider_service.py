"""ProviderService built from a plain scope: no request, a real clinic's session."""

import uuid

import pytest
from sqlalchemy import select

from clinicrecords.errors import InvalidInput
from clinicrecords.providers.models import Provider
from clinicrecords.providers.services import (
    ProviderService,
    clinicians_among,
    provider_exists,
    provider_service_factory,
)
from tests.common.scopes import ClinicNode, cursors, plain_scope


def test_adds_reads_and_pages_without_a_request(world):
    with plain_scope(world, world.clinic()) as scope:
        service = provider_service_factory(ClinicNode(scope), None)
        assert service.db is scope.db
        zed = service.add("Ada", "Zed", "physician", specialties=["cardiology"], licences=["MA:123:2030-01-01"])
        ash = service.add("Bo", "Ash", "nurse")
        assert service.get(zed.id) is zed and zed.licences[0]["expires_on"] == "2030-01-01"
        page = service.list({"limit": 1}, cursors(world))
        rest = service.list({"limit": 1, "starting_after": page.next_cursor}, cursors(world))
        assert page.has_more and not rest.has_more
        assert {page.items[0].id, rest.items[0].id} == {zed.id, ash.id}
        assert provider_exists(scope.db, ash.id) and not provider_exists(scope.db, uuid.uuid4())
        assert [p.id for p in clinicians_among(scope.db, select(Provider.id))] == [ash.id, zed.id]
        assert clinicians_among(scope.db, select(Provider.id).where(Provider.id == zed.id)) == [zed]


def test_the_plain_service_refuses_a_bad_clinician(world):
    with plain_scope(world, world.clinic()) as scope:
        with pytest.raises(InvalidInput):
            ProviderService(scope.db).add("Ada", " ", "physician")
