"""Values bound into a statement's text (db/literals.py): written as psycopg writes them, and read back by
PostgreSQL as the same value."""

import datetime
import enum
import uuid

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb

from clinicrecords.db.literals import bind

AT = datetime.datetime(2026, 12, 1, 1, 59, 2, 79366, tzinfo=datetime.timezone.utc)


class Mode(str, enum.Enum):
    live = "live-value"


VALUES = [None, True, False, 0, 600, -1, 2 ** 62, uuid.UUID(int=7), AT, AT.replace(tzinfo=None), AT.date(),
          "live", "O'Brien", "back\\slash", "ünïcödé ✓", "", 1.5, b"\x00\xff", Jsonb({"a": ["b", 1]}),
          [uuid.UUID(int=1)], Mode.live]


@pytest.fixture
def driver(engine):
    with engine.connect() as connection:
        yield connection.connection.driver_connection


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_each_value_is_written_as_psycopg_writes_it(driver, value):
    query = "SELECT %(value)s, %(value)s"
    assert bind(driver, query, {"value": value}) == psycopg.ClientCursor(driver).mogrify(query, {"value": value})


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_each_value_is_read_back_as_itself(driver, value):
    read = driver.execute(bind(driver, "SELECT %(value)s", {"value": value})).fetchone()[0]
    assert read == (value.obj if isinstance(value, Jsonb) else value)


def test_a_literal_percent_sign_stays_and_only_placeholders_are_replaced(driver):
    query = "SELECT '100%%' AS share, %(a)s || '%%(b)s' AS text, %(a)s"
    assert bind(driver, query, {"a": "x"}) == psycopg.ClientCursor(driver).mogrify(query, {"a": "x"})
    assert bind(driver, query, {"a": "x"}) == "SELECT '100%' AS share, 'x' || '%(b)s' AS text, 'x'"


def test_a_composed_query_is_bound_too(driver):
    query = psycopg.sql.SQL("SELECT {}, %(a)s").format(psycopg.sql.Literal(3))
    assert bind(driver, query, {"a": 4}) == "SELECT 3, 4"


def test_a_string_with_a_nul_is_refused_as_psycopg_refuses_it(driver):
    with pytest.raises(psycopg.DataError):
        bind(driver, "SELECT %(a)s", {"a": "before\x00after"})


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))))
def test_any_text_without_a_nul_is_read_back_whole(app, text):
    with app.registry["db.engine"].connect() as connection:
        driver = connection.connection.driver_connection
        assert driver.execute(bind(driver, "SELECT %(a)s, -%(n)s", {"a": text, "n": -2})).fetchone() == (text, 2)
