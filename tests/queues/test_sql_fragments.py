"""What a consumer hands the one-statement submission (apps/queues/sql.py): a Guard and a Record, SQL with named
placeholders that the engine checks before it runs anything, and turns into psycopg's positional form."""

from datetime import UTC, datetime

import pytest

from apps.queues import services
from apps.queues.sql import TRUE, Guard, Record

RECORD = "INSERT INTO t (a, b) SELECT %(a)s, %(b)s FROM counted RETURNING id"


def test_named_values_become_positional_in_the_order_they_appear_repeats_included():
    guard = Guard("x.clip_id = %(clip)s AND x.at <= %(now)s AND y.clip_id = %(clip)s AND y.note LIKE '5%%'",
                  {"now": "then", "clip": 7})
    assert guard.positional() == ("x.clip_id = %s AND x.at <= %s AND y.clip_id = %s AND y.note LIKE '5%%'",
                                  [7, "then", 7])
    assert Record(RECORD, {"a": 1, "b": 2}).positional() == (
        "INSERT INTO t (a, b) SELECT %s, %s FROM counted RETURNING id", [1, 2])
    assert TRUE.positional() == ("TRUE", [])


@pytest.mark.parametrize("sql", [
    "a.worker_id = %(w)s; DELETE FROM t",  # ends the statement
    "a.worker_id = %(w)s -- AND the rest",  # comments out the engine's own conditions
    "a.worker_id = %(w)s /* */",
])
def test_a_fragment_that_could_end_or_cut_the_statement_is_refused(sql):
    with pytest.raises(ValueError, match="could end or comment out"):
        Guard(sql, {"w": 1})


@pytest.mark.parametrize("sql", ["a.worker_id = %s", "a.note LIKE '5%'", "a.worker_id = %(w)d"])
def test_every_value_is_named(sql):
    with pytest.raises(ValueError, match="name every value"):
        Guard(sql, {"w": 1} if "%(w)" in sql else {})


def test_each_placeholder_has_its_value_and_each_value_its_placeholder():
    with pytest.raises(ValueError, match=r"without a value \['w'\]"):
        Guard("a.worker_id = %(w)s", {})
    with pytest.raises(ValueError, match=r"without a placeholder \['extra'\]"):
        Guard("a.worker_id = %(w)s", {"w": 1, "extra": 2})


def test_a_guard_only_reads():
    with pytest.raises(ValueError, match="writes nothing"):
        Guard("EXISTS (SELECT 1 FROM (UPDATE t SET x = 1 RETURNING 1) w)")
    Guard("NOT EXISTS (SELECT 1 FROM r WHERE r.updated_at > %(now)s)", {"now": 1})  # words containing a verb are fine


@pytest.mark.parametrize("sql", [
    "SELECT 1 FROM counted",  # not an insert
    "INSERT INTO t (a) SELECT 1 RETURNING id",  # one row per counted submission: FROM counted
    "INSERT INTO t (a) SELECT 1 FROM counted",  # the engine returns the record's RETURNING row
])
def test_a_record_is_an_insert_from_counted_returning_its_row(sql):
    with pytest.raises(ValueError, match="INSERT INTO ... SELECT ... FROM counted ... RETURNING"):
        Record(sql)


def test_the_engine_takes_no_sql_text_in_their_place():
    """The shape before: SQL strings and positional lists passed from the consumer straight into the statement."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(TypeError, match="Record and Guard"):
        services.submit_in_one_statement(RECORD, item_id=1, worker_id=1, now=at)
    with pytest.raises(TypeError, match="Record and Guard"):
        services.submit_in_one_statement(Record(RECORD, {"a": 1, "b": 2}), item_id=1, worker_id=1, now=at,
                                         guard="TRUE")
