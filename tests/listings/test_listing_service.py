"""The listings service built from plain values (no request): whose network a key sees."""

from types import SimpleNamespace

import pytest

from clinicrecords.api.problems import Problem
from clinicrecords.listings.network import ListingService
from tests.common.scopes import plain_cursors
from tests.inventory.conftest import AGE


def _identity(workspace_id=None, clinic_id=None, verified=True):
    return SimpleNamespace(workspace_id=workspace_id, clinic_id=clinic_id, is_test=False, sandbox_clinic_id=None,
                           workspace_verified=verified, workspace_plan="paid", workspace_terms_accepted=True)


def _pharmacies(world, registry, identity):
    with world.db() as db:
        page = ListingService(db, identity, AGE, plain_cursors(registry)).pharmacies({"limit": 100})
        return [row.clinic_id for row in page.items]


def test_a_key_sees_the_pharmacies_listed_to_its_workspace(world, registry, network):
    listed = network.pharmacy("Alder Pharmacy")
    network.pharmacy("Birch Pharmacy", publish=False)
    assert _pharmacies(world, registry, _identity(network.workspace_id)) == [listed.id]
    assert _pharmacies(world, registry, _identity(clinic_id=listed.id)) == []  # a clinic-owned key: none
    with pytest.raises(Problem) as refused:
        _pharmacies(world, registry, _identity(network.workspace_id, verified=False))
    assert refused.value.code == "not_verified"
