"""A cursor for the statements on the workers' hot paths (the claim, the one-statement rating, serving a
clip): PostgreSQL parses each of them once per connection and keeps it (a prepared statement), where
Django's default cursor sends every statement as new text with its values inlined, to be parsed again
(benchmarks/listening_load.py, one listener: 12.3 ms p50 a rating call without, 7.0 with, ORM reads on the
path included). psycopg prepares only where asked: settings give the connection a prepare_threshold, and
Django's own cursor (client-side binding) never prepares.

Only these statements: the rest of the project keeps Django's client-side binding, because a statement
bound by the server takes at most 65,535 parameters (with it on everywhere, an import's IN list of 80,000
audio digests failed). Behind a pooler in transaction mode (PgBouncer), which cannot keep a connection's
prepared statements, set SORI_PREPARED_STATEMENTS=0. Elsewhere than PostgreSQL: the ordinary cursor.

Private Django API: the cursor is wrapped by DatabaseWrapper._prepare_cursor(cursor), the step Django's own
cursor() takes after create_cursor (thread check, then the debug or plain wrapper), and it is the PostgreSQL
backend's ServerBindingCursor asked to prepare. Neither is promised to stay: tests/core/test_prepared_pin.py
checks both signatures and that behaviour, and fails with what changed on a Django upgrade that moves them.
The statements themselves are in each app's sql.py."""

from functools import cache

from django.conf import settings
from django.db import connection
from django.db.backends.postgresql.base import ServerBindingCursor


class PreparedCursor(ServerBindingCursor):
    def execute(self, query, params=None, **kwargs):
        return super().execute(query, params, prepare=True, **kwargs)


def prepared_cursor():
    """Use as `with prepared_cursor() as cursor:`; queries show in CaptureQueriesContext as any other."""
    if connection.vendor != "postgresql" or not settings.PREPARED_STATEMENTS:
        return connection.cursor()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        raw = PreparedCursor(connection.connection)
    return connection._prepare_cursor(raw)


def columns(alias: str, model, attnames: list[str] | None = None) -> str:
    """The model's columns (those of `attnames`, or all), in its field order: the order `load` reads."""
    return ", ".join(f'{alias}."{f.column}"' for f in model._meta.concrete_fields
                     if attnames is None or f.attname in attnames)


def load(model, values, attnames: list[str] | None = None):
    """A model instance from a row of `columns` (the fields not named load if asked for), each value converted
    as the ORM converts it on this database: SQLite hands back datetimes without their time zone, UUIDs and
    decimals as text, where PostgreSQL's come typed; a row read here must compare with one the ORM read."""
    names = tuple(attnames if attnames is not None else [f.attname for f in model._meta.concrete_fields])
    row = list(values)
    for index, (column, converters) in enumerate(_converters(connection.vendor, model, names)):
        for convert in converters:
            row[index] = convert(row[index], column, connection)
    return model.from_db(connection.alias, list(names), row)


@cache
def _converters(vendor: str, model, names: tuple[str, ...]) -> list[tuple[object, list]]:
    """Per column: (its expression, the backend's and the field's converters), as Django's SQL compiler
    applies them; found once per model, columns and database vendor."""
    fields = {f.attname: f for f in model._meta.concrete_fields}
    out = []
    for name in names:
        column = fields[name].get_col(model._meta.db_table)
        out.append((column, connection.ops.get_db_converters(column) + column.get_db_converters(connection)))
    return out
