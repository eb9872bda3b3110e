"""Inserting many rows in one statement, without a model instance per row.

`bulk_create` builds a model instance per row and one placeholder per value; for the imports of tens of
thousands of rows that is most of their time. `insert_rows` sends a batch to PostgreSQL as one JSON
parameter (`INSERT ... SELECT ... FROM json_to_recordset(%s)`: json.dumps and the server's parser do the
work that a placeholder per value would do in Python), still an ordinary INSERT (in the transaction,
counted by CaptureQueriesContext, refused by the same constraints). Other databases (SQLite) get
bulk_create.

Values go in as the database stores them: a foreign key's id under its attname (`asset_id`), text as str,
None for NULL (datetimes and UUIDs as themselves: they travel as their str()). A field not named takes its model default (auto_now_add: the time of the call)."""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.db import connection
from django.db.models import Model
from django.utils import timezone

BATCH_ROWS = 5000  # rows per statement: bounded memory and statement size

_paused = 0  # how many cycle_collection_paused() blocks are running, in any thread
_paused_lock = threading.Lock()
_was_enabled = True


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a bulk import. An import keeps every row, file check and
    asset it makes alive until its end, so each full collection it sets off walks all of them again and
    frees nothing (about 3 s of a 100,000-clip import). Reference counting still frees what dies meanwhile;
    the collector resumes (if it ran before) when the last paused block in the process ends."""
    global _paused, _was_enabled
    with _paused_lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _paused_lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()


def insert_rows(model: type[Model], columns: Sequence[str], rows: Sequence[Sequence], *,
                returning: Sequence[str] = ()) -> list[tuple]:
    """Insert `rows` (each a sequence of values for `columns`, attnames) into the model's table. With
    `returning` (attnames), the answer holds those values of each inserted row, in no promised order (name
    a unique column to match them); without, it is empty."""
    fields = {f.attname: f for f in model._meta.concrete_fields}
    unknown = [c for c in (*columns, *returning) if c not in fields]
    if unknown:
        raise ValueError(f"{model.__name__} has no column {', '.join(unknown)}")
    defaults = {
        f.attname: f for f in model._meta.concrete_fields
        if f.attname not in columns and not f.primary_key
    }
    now = timezone.now()

    def default(field):
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            return now
        if field.has_default():
            return field.get_default()
        if field.null:
            return None
        raise ValueError(f"{model.__name__}.{field.attname} needs a value")

    # A callable default (a uuid4) is drawn per row; a constant one once.
    per_row = [c for c, f in defaults.items() if callable(f.default) and not getattr(f, "auto_now_add", False)]
    constant = {c: default(f) for c, f in defaults.items() if c not in per_row}
    names = [*columns, *constant, *per_row]
    answer: list[tuple] = []
    for start in range(0, len(rows), BATCH_ROWS):
        batch = rows[start:start + BATCH_ROWS]
        full = [(*row, *constant.values(), *(defaults[c].get_default() for c in per_row)) for row in batch]
        if connection.vendor != "postgresql":
            objs = model._default_manager.bulk_create([model(**dict(zip(names, row, strict=True))) for row in full])
            answer += [tuple(getattr(obj, c) for c in returning) for obj in objs] if returning else []
            continue
        quote = connection.ops.quote_name
        columns_sql = ", ".join(quote(fields[c].column) for c in names)
        record = ", ".join(f"{quote(fields[c].column)} {fields[c].db_type(connection)}" for c in names)
        sql = (f"INSERT INTO {quote(model._meta.db_table)} ({columns_sql}) "
               f"SELECT {columns_sql} FROM json_to_recordset(%s::json) AS r({record})")
        if returning:
            sql += f" RETURNING {', '.join(quote(fields[c].column) for c in returning)}"
        keys = [fields[c].column for c in names]
        with connection.cursor() as cursor:
            cursor.execute(sql, [json.dumps([dict(zip(keys, row, strict=True)) for row in full], default=str, allow_nan=False)])
            if returning:
                answer += cursor.fetchall()
    return answer


def refresh_statistics(*models: type[Model]) -> None:
    """ANALYZE the models' tables (PostgreSQL): after an import grew them by thousands of rows, the planner
    plans the next queries on them (a worker's claim, their progress) from their real sizes at once
    instead of from empty-table guesses until autovacuum gets round to them."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(m._meta.db_table) for m in models))
