"""Hand-written SQL shared by the apps, one function per statement: the bulk loader's (apps.core.bulk), the
health check's, and two ways of reading a QuerySet's rows that the ORM does not offer (straight into
tuples for pandas; an aggregate over an aggregate). Domain code calls these by name; an app's own
statements live in that app's sql.py, the cursor that prepares them in apps.core.prepared.

Why bulk.py keeps its name and only its statements moved here: most of it is not SQL (batching, defaults,
the garbage collector's pause), and its callers (imports in three apps) ask it for rows inserted, not for
a statement."""

from __future__ import annotations

import time
from collections.abc import Sequence

from django.db import connection, connections
from django.db.models import Model, QuerySet


def rows_of(queryset: QuerySet) -> list[tuple]:
    """The rows of a values_list QuerySet as the cursor returns them (no model instances, no per-row
    conversion): the ORM writes the SQL. Only for fields without converters."""
    sql, params = queryset.query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def aggregate_over(queryset: QuerySet, outer: str) -> list[tuple]:
    """Run `outer`, an aggregate over the rows of `queryset` (named `{inner}` in it), in the database: for a
    second GROUP BY over the first, which the ORM does not write."""
    sql, inner_params = queryset.query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(outer.format(inner=f"({sql}) inner_rows"), inner_params)
        return cursor.fetchall()


def ping() -> None:
    """Raise if the database does not answer."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def draw_ids(model: type[Model], count: int) -> list[int]:
    """PostgreSQL: `count` ids from the primary key's sequence (what the INSERT's default would have taken)."""
    table, column = model._meta.db_table, model._meta.pk.column
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)", [table, column, count])
        return [value for (value,) in cursor.fetchall()]


def copy_rows(model: type[Model], db_columns: Sequence[str], rows: Sequence[tuple]) -> None:
    """PostgreSQL: COPY the rows into the model's table, in the transaction, refused by the same constraints
    (as Django's IntegrityError) and logged as one statement where Django logs queries."""
    quote = connection.ops.quote_name
    sql = f"COPY {quote(model._meta.db_table)} ({', '.join(map(quote, db_columns))}) FROM STDIN"
    started = time.monotonic()
    # wrap_database_errors: a refused row raises Django's IntegrityError, as from an INSERT.
    with connection.cursor() as cursor, connection.wrap_database_errors, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)
    if connection.queries_logged:  # as Django logs an execute(): debug pages, CaptureQueriesContext
        connection.queries_log.append({"sql": f"{sql} -- {len(rows)} rows", "time": f"{time.monotonic() - started:.3f}"})


def analyze(*models: type[Model]) -> None:
    """PostgreSQL: ANALYZE the models' tables."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(m._meta.db_table) for m in models))
