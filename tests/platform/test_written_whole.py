"""A clinic's records come back whole from the statement that writes them: what the server sets on a write is
read back by that write's RETURNING, so a service never SELECTs what it has just written
(docs/decisions/0167-a-write-reads-back-what-the-server-sets.md)."""

from clinicrecords.contexts import load_models
from clinicrecords.db.meta import TenantBase


def test_every_clinic_table_reads_back_what_the_server_sets_in_its_write():
    load_models()
    mappers = list(TenantBase.registry.mappers)
    assert len(mappers) > 30
    assert [mapper.class_.__name__ for mapper in mappers if mapper.eager_defaults is not True] == []
