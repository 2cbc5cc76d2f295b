"""The isolation properties (tests/security/test_isolation_property.py), with every request served through
PgBouncer in transaction mode: the same oracle, the application configured as a pooled deployment. The
records are set up, and the snapshots read, on the suite's direct connection."""

import pytest
import webtest

from tests.common.connections import ConnectionWatch
from tests.security import test_isolation_property as isolation


@pytest.fixture
def pooled_testapp(pooled_app):
    watch = ConnectionWatch(pooled_app.registry["db.engine"])
    yield webtest.TestApp(watch.wrap(pooled_app), extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    watch.close()
    watch.assert_one_at_a_time()


def test_reads_through_the_pooler_show_nothing_outside_reach(pooled_app, pooled_testapp, world):
    isolation.test_no_key_sees_outside_its_reach_and_refusals_do_not_tell(pooled_app, pooled_testapp, world)


def test_writes_through_the_pooler_naming_another_clinic_change_nothing(pooled_app, pooled_testapp, world, engine):
    isolation.test_writes_naming_another_clinic_s_records_answer_like_missing_ones_and_change_nothing(
        pooled_app, pooled_testapp, world, engine)


def test_writes_by_property_through_the_pooler(pooled_app, pooled_testapp, world, engine):
    isolation.test_writes_by_property_answer_by_reach_and_scope_and_refusals_change_nothing(
        pooled_app, pooled_testapp, world, engine)
