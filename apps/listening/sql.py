"""The listening app's hand-written SQL: the statements on a listener's path that the ORM would split into
several round trips (serving a clip and noting when; loading a clip with its test for a rating) and the
rating's part of the assignment engine's one-statement submission (a Guard and a Record, apps/queues/sql.py).
All PostgreSQL; apps/listening/services.py and selectors.py decide when each runs, and the SQLite path."""

from __future__ import annotations

from datetime import datetime

from django.db import connection
from django.db.models import JSONField

from apps.audio import playback
from apps.audio.models import AudioAsset
from apps.core.prepared import columns, load, prepared_cursor
from apps.listening.models import Clip, ClipServing, Consent, ListeningTest, Rating
from apps.queues.models import WorkPool
from apps.queues.sql import Guard, Record

# The clip's fields a listener's answer and the playback gate read; the others load if asked for.
_CLIP_KEYS = ["id", "test_id", "work_item_id", "asset_id"]


def serve_clip(item_id: int, listener_id: int, now: datetime) -> Clip:
    """The leased item's clip and its audio asset, noting when it was first served to the listener (a
    repeated `next` for the same lease keeps that): one statement, committed on its own."""
    sql = f"""
        WITH clip AS (
            SELECT {columns("c", Clip, _CLIP_KEYS)}, x.public_id, x.duration_seconds
            FROM {Clip._meta.db_table} c JOIN {AudioAsset._meta.db_table} x ON x.id = c.asset_id
            WHERE c.work_item_id = %s
        ), served AS (
            INSERT INTO {ClipServing._meta.db_table} (clip_id, listener_id, served_at)
            SELECT clip.id, %s, %s FROM clip ON CONFLICT DO NOTHING
        )
        SELECT * FROM clip
    """
    with prepared_cursor() as cursor:
        cursor.execute(sql, [item_id, listener_id, connection.ops.adapt_datetimefield_value(now)])
        row = cursor.fetchone()
    clip = load(Clip, row[:4], _CLIP_KEYS)
    clip.asset = load(AudioAsset, (clip.asset_id, *row[4:]), ["id", "public_id", "duration_seconds"])
    return clip


def clip_for_listener(pk: int, listener_id: int) -> Clip | None:
    """The clip with its test, the test's pool and `consented` (this listener agreed to the test), in one
    prepared query: the clip carries its keys, the test and pool their columns but JSON ones."""
    test_fields = [f.attname for f in ListeningTest._meta.concrete_fields if not isinstance(f, JSONField)]
    sql = f"""
        SELECT {columns("c", Clip, _CLIP_KEYS)}, {columns("t", ListeningTest, test_fields)}, {columns("p", WorkPool)},
               EXISTS (SELECT 1 FROM {Consent._meta.db_table} k WHERE k.test_id = t.id AND k.listener_id = %s)
        FROM {Clip._meta.db_table} c JOIN {ListeningTest._meta.db_table} t ON t.id = c.test_id
        JOIN {WorkPool._meta.db_table} p ON p.id = t.pool_id
        WHERE c.id = %s
    """
    with prepared_cursor() as cursor:
        cursor.execute(sql, [listener_id, pk])
        row = cursor.fetchone()
    if row is None:
        return None
    pool_width = len(WorkPool._meta.concrete_fields)
    clip = load(Clip, row[:len(_CLIP_KEYS)], _CLIP_KEYS)
    clip.test = load(ListeningTest, row[len(_CLIP_KEYS):-pool_width - 1], test_fields)
    clip.test.pool = load(WorkPool, row[-pool_width - 1:-1])
    clip.test.consented = row[-1]
    return clip


_RATING_GUARD = f"""
    NOT EXISTS (SELECT 1 FROM {Rating._meta.db_table} r WHERE r.clip_id = %(clip)s AND r.listener_id = a.worker_id)
    AND EXISTS (
        SELECT 1 FROM {ClipServing._meta.db_table} s JOIN {Clip._meta.db_table} c ON c.id = s.clip_id
        JOIN {AudioAsset._meta.db_table} x ON x.id = c.asset_id
        WHERE s.clip_id = %(clip)s AND s.listener_id = a.worker_id
          AND {playback.played_through_sql(asset_id="c.asset_id", user_id="s.listener_id", served_at="s.served_at",
                                           duration_seconds="x.duration_seconds")})
"""

# One row per counted submission, whatever else holds (the guard made sure the clip was served).
_RATING_RECORD = f"""
    INSERT INTO {Rating._meta.db_table} (clip_id, listener_id, score, rated_at, listening_seconds)
    SELECT %(clip)s, %(listener)s, %(score)s, %(now)s, EXTRACT(EPOCH FROM %(now)s - (
        SELECT s.served_at FROM {ClipServing._meta.db_table} s WHERE s.clip_id = %(clip)s AND s.listener_id = %(listener)s))
    FROM counted
    RETURNING id, listening_seconds
"""


def rating_guard(clip_id: int, now: datetime) -> Guard:
    """A rating counts in one statement when the listener has not rated the clip yet and it was served to
    them and played through (apps.audio.playback's rule)."""
    at = connection.ops.adapt_datetimefield_value(now)
    return Guard(_RATING_GUARD, {"clip": clip_id, **playback.rule_params(at)})


def rating_record(clip_id: int, listener_id: int, score: int, now: datetime) -> Record:
    """The Rating row, with the seconds since the clip was served to the listener."""
    at = connection.ops.adapt_datetimefield_value(now)
    return Record(_RATING_RECORD, {"clip": clip_id, "listener": listener_id, "score": score, "now": at})
