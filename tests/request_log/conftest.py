import pytest

from clinicrecords.request_log.interfaces import IRequestLog
from tests.common.world import World


@pytest.fixture
def writer(registry):
    return registry["request_log.writer"]


@pytest.fixture
def request_log(registry, writer):
    """`request_log(owner_id, **filters)`: flushes the writer, then searches as the portal will."""
    world = World(registry)

    def search(owner_id, **filters):
        assert writer.flush(timeout=10)
        with world.request() as request:
            return request.find_service(IRequestLog).search(owner_id, **filters)

    return search
