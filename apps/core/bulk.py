"""Inserting many rows in one statement, without a model instance per row.

`bulk_create` builds a model instance per row and one placeholder per value; for the imports of tens of
thousands of rows that is most of their time. On PostgreSQL `insert_rows` streams a batch with COPY (psycopg
turns each row into the wire format in C): in the transaction, refused by the same constraints, and logged
as one statement where Django logs queries (so CaptureQueriesContext counts it). The ids it reports are
drawn from the table's sequence first, as the INSERT's own defaults would draw them. Other databases
(SQLite) get bulk_create. The statements themselves are in apps/core/sql.py.

Values go in as the database stores them: a foreign key's id under its attname (`asset_id`), text as str,
None for NULL, datetimes and UUIDs as themselves (no JSON values). A field not named takes its model
default (auto_now_add: the time of the call)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.db import connection
from django.db.models import Model
from django.utils import timezone

from apps.core import sql

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
    `returning` (the primary key and columns given), the answer holds those values of each inserted row, in
    the rows' order; without, it is empty."""
    fields = {f.attname: f for f in model._meta.concrete_fields}
    pk = model._meta.pk.attname
    unknown = [c for c in columns if c not in fields] + [c for c in returning if c not in (pk, *columns)]
    if unknown:
        raise ValueError(f"{model.__name__} has no column {', '.join(unknown)} to insert or return")
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
    with_ids = pk in returning and pk not in columns
    answer: list[tuple] = []
    for start in range(0, len(rows), BATCH_ROWS):
        batch = rows[start:start + BATCH_ROWS]
        full = [(*row, *constant.values(), *(defaults[c].get_default() for c in per_row)) for row in batch]
        if connection.vendor != "postgresql":
            objs = model._default_manager.bulk_create([model(**dict(zip(names, row, strict=True))) for row in full])
            answer += [tuple(getattr(obj, c) for c in returning) for obj in objs] if returning else []
            continue
        if with_ids:
            full = [(*row, pk_value) for row, pk_value in zip(full, sql.draw_ids(model, len(full)), strict=True)]
        batch_names = [*names, pk] if with_ids else names
        sql.copy_rows(model, [fields[c].column for c in batch_names], full)
        if returning:
            at = [batch_names.index(c) for c in returning]
            answer += [tuple(row[i] for i in at) for row in full]
    return answer


def refresh_statistics(*models: type[Model]) -> None:
    """ANALYZE the models' tables (PostgreSQL): after an import grew them by thousands of rows, the planner
    plans the next queries on them (a worker's claim, their progress) from their real sizes at once
    instead of from empty-table guesses until autovacuum gets round to them."""
    if connection.vendor == "postgresql":
        sql.analyze(*models)
