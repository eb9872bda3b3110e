"""The assignment engine's hand-written SQL, one function per statement; apps/queues/services.py says what
each one is for and keeps the rules (the locks, the order of the calls, the refusals).

Why by hand: these are the statements on every claim and every submission. Each checks a slot and writes in
one statement after the item's row lock was granted (the ORM would read, then write: a race), most are
prepared once per connection (apps.core.prepared), and the claim's plan must not depend on the planner's
statistics (see candidate_id). Everything else in the app uses the ORM.

A consumer that submits in one statement (`submit_counted`) hands its own SQL in as a `Guard` and a
`Record`: text with named placeholders and their values, checked here before anything runs."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from django.db import connection

from apps.core.prepared import columns, load, prepared_cursor
from apps.queues.models import Assignment, AssignmentStatus, PoolExclusion, WorkItem, WorkPool
from apps.queues.ordering import BUCKET_SPAN, BUCKETS, ORDER_PRIME, bucket_order, order_seed

# ---- what a consumer hands in -----------------------------------------------------------------------------

_NAMED = re.compile(r"%\((\w+)\)s")
_WRITES = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|DROP|ALTER|CREATE|GRANT|COPY)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Fragment:
    """A piece of SQL that goes inside the engine's statement: `sql` names its values `%(name)s` and `params`
    gives each of them. Refused (ValueError) when it could end or comment out the statement around it (a
    semicolon, `--`, `/*`), carries a positional `%s` or a stray `%` (write `%%` for a literal one), or when
    a placeholder has no value or a value no placeholder."""

    sql: str
    params: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = _placeholders(self.sql)
        missing, unused = set(names) - set(self.params), set(self.params) - set(names)
        if missing or unused:
            raise ValueError(f"{type(self).__name__}: placeholders without a value {sorted(missing)}, "
                             f"values without a placeholder {sorted(unused)}")
        self._check()

    def _check(self) -> None:
        """What this kind of fragment must look like, beyond the common rules."""

    def positional(self) -> tuple[str, list]:
        """The text with psycopg's positional placeholders and the values in their order."""
        text, names = _compile(self.sql)
        return text, [self.params[name] for name in names]


class Guard(Fragment):
    """A condition on the lease row `a` (and the statement's snapshot) that must hold for the submission to
    count. It only reads: a guard that writes is refused."""

    def _check(self) -> None:
        if _WRITES.search(self.sql):
            raise ValueError(f"Guard: a guard is a condition and writes nothing: {self.sql.strip()[:80]!r}")


class Record(Fragment):
    """The consumer's record of the submission: `INSERT INTO ... SELECT ... FROM counted ... RETURNING ...`,
    one row for the one row of `counted` (its conditions belong in the Guard)."""

    def _check(self) -> None:
        text = self.sql.strip()
        if not re.match(r"INSERT\s+INTO\b", text, re.IGNORECASE) or not re.search(r"\bFROM\s+counted\b", text) \
                or not re.search(r"\bRETURNING\b", text, re.IGNORECASE):
            raise ValueError("Record: write INSERT INTO ... SELECT ... FROM counted ... RETURNING ...")


@lru_cache(maxsize=256)
def _placeholders(sql: str) -> tuple[str, ...]:
    for token in (";", "--", "/*"):
        if token in sql:
            raise ValueError(f"SQL fragment: {token!r} could end or comment out the statement around it")
    if "%" in _NAMED.sub("", sql).replace("%%", ""):
        raise ValueError("SQL fragment: name every value (%(name)s); write %% for a literal percent sign")
    return tuple(_NAMED.findall(sql))


@lru_cache(maxsize=256)
def _compile(sql: str) -> tuple[str, tuple[str, ...]]:
    return _NAMED.sub("%s", sql), _placeholders(sql)


TRUE = Guard("TRUE")


# ---- claiming ---------------------------------------------------------------------------------------------

# "Item i has a free slot": params (leased status, now, worker id whose own lease is not counted, K).
HAS_ROOM_SQL = f"""
    NOT i.closed AND (i.capacity = 0 OR i.submitted_count + (
        SELECT COUNT(*) FROM {Assignment._meta.db_table} a
        WHERE a.item_id = i.id AND a.status = %s AND a.expires_at > %s AND a.worker_id <> %s
    ) < COALESCE(i.capacity, %s))
"""


def _at(moment: datetime):
    return connection.ops.adapt_datetimefield_value(moment)


def lock_worker(pool_id: int, worker_id: int, *, async_commit: bool) -> None:
    """PostgreSQL only. Transaction-scoped advisory lock on (pool, worker), released at commit or rollback;
    for a claim that is its own transaction, asynchronous commit (set_config(..., true) = SET LOCAL); and
    plans made for the values at hand: a prepared claim query's generic plan, made without knowing where the
    walk starts, read every bucket (4 to 7 ms instead of under one)."""
    extra = ", set_config('synchronous_commit', 'off', true)" if async_commit else ""
    with prepared_cursor() as cursor:
        cursor.execute(f"SELECT pg_advisory_xact_lock(%s, %s), set_config('plan_cache_mode', 'force_custom_plan', true)"
                       f"{extra}", [_int4(pool_id), _int4(worker_id)])


def _int4(value: int) -> int:
    """Fold an id into PostgreSQL's int4 range for advisory-lock keys (a collision only serialises more)."""
    return (value % 2**32) - 2**31


def leases_of(pool_id: int, worker_id: int) -> list[Assignment]:
    """The worker's leased rows in the pool (live or lapsed), oldest first: a prepared statement, on every claim."""
    with prepared_cursor() as cursor:
        cursor.execute(f"SELECT {columns('a', Assignment)} FROM {Assignment._meta.db_table} a"
                       " WHERE a.pool_id = %s AND a.worker_id = %s AND a.status = %s ORDER BY a.leased_at, a.id",
                       [pool_id, worker_id, AssignmentStatus.LEASED])
        return [load(Assignment, row) for row in cursor.fetchall()]


def candidate_id(pool: WorkPool, worker_id: int, now: datetime, *, exclude: list[int], window: int | None,
                 lock: str) -> int | None:
    """The first item in the worker's order that looks open, locked unless lock="none" (lock="skip" skips
    rows others hold locked). One query:
    - open items of the pool (an index on (pool, order_key)) that this worker has no assignment for. An
      anti-join became a nested loop on a fresh pool without statistics (hundreds of ms); EXCEPT plus a
      join for the order key let a seq scan of the whole item table in. So: a scalar subquery per item
      on the unique (item, worker) index in the walk below, a hashed NOT IN over the whole pool;
    - the first `window` of those in the worker's order. On PostgreSQL the windowed query walks the
      worker's buckets from the one of the item they were given last (a LATERAL index range per bucket;
      the buckets come WITH ORDINALITY, which PostgreSQL knows is their order, so it stops at the bucket
      that fills the window) and ranks only those items: its work does not grow with the pool or the
      worker's history. Otherwise (SQLite), and for the whole pool, it ranks every open item;
    - of those, the ones whose submitted + live leases leave a slot (an index probe each), locked in order.
    """
    assert lock in {"skip", "none"}, lock
    a, b = seed = order_seed(pool.pk, worker_id)
    item_table = WorkItem._meta.db_table
    walk = bool(window) and connection.vendor == "postgresql"
    asg_table = Assignment._meta.db_table
    # Not the worker's own: walking a bucket, a probe of the unique (item, worker) index per item (a
    # scalar subquery, which PostgreSQL never turns into a join); over the whole pool, the hashed NOT IN.
    not_mine = (f"(SELECT mine.id FROM {asg_table} mine WHERE mine.item_id = i.id AND mine.worker_id = %s) IS NULL"
                if walk else
                f"i.id NOT IN (SELECT mine.item_id FROM {asg_table} mine WHERE mine.pool_id = %s AND mine.worker_id = %s)")
    open_items = f"""
        i.pool_id = %s AND NOT i.closed AND NOT i.complete
        {f"AND i.id NOT IN ({', '.join(['%s'] * len(exclude))})" if exclude else ""}
        AND {not_mine}
        AND NOT EXISTS (SELECT 1 FROM {PoolExclusion._meta.db_table} ex WHERE ex.pool_id = %s AND ex.worker_id = %s)
    """
    open_params = [pool.pk, *exclude, *([worker_id] if walk else [pool.pk, worker_id]), pool.pk, worker_id]
    item_rank = "(CAST(i.order_key AS BIGINT) * %s + %s) %% %s"
    buckets = bucket_order(seed)
    if walk:
        # The worker's bucket starts twice over, walked from the bucket of the item they were given last
        # (earlier buckets hold their own items; the items they could not get there come round at the end).
        starts = [n * BUCKET_SPAN for n in buckets] * 2
        ranked = f"""
            WITH here AS (SELECT COALESCE((
                SELECT array_position(%s::bigint[], CAST(i.order_key / %s * %s AS BIGINT))
                FROM {asg_table} a JOIN {item_table} i ON i.id = a.item_id
                WHERE a.pool_id = %s AND a.worker_id = %s ORDER BY a.id DESC LIMIT 1
            ), 1) AS pos)
            SELECT c.id, b.pos AS bucket, c.r FROM unnest(%s::bigint[]) WITH ORDINALITY AS b(lo, pos)
            CROSS JOIN LATERAL (
                SELECT i.id, {item_rank} AS r FROM {item_table} i
                WHERE i.order_key >= b.lo AND i.order_key < b.lo + %s AND {open_items}
                ORDER BY r, i.id LIMIT %s
            ) c
            WHERE b.pos >= (SELECT pos FROM here) AND b.pos < (SELECT pos FROM here) + %s
            ORDER BY b.pos LIMIT %s
        """
        ranked_params = [starts, BUCKET_SPAN, BUCKET_SPAN, pool.pk, worker_id, starts, a, b, ORDER_PRIME, BUCKET_SPAN,
                         *open_params, window, BUCKETS, window]
    else:
        ranked = f"""
            WITH b(n, pos) AS (VALUES {", ".join(["(%s, %s)"] * len(buckets))})
            SELECT i.id, b.pos AS bucket, {item_rank} AS r
            FROM {item_table} i JOIN b ON b.n = CAST(i.order_key AS BIGINT) / %s WHERE {open_items}
            ORDER BY bucket, r, i.id {"LIMIT %s" if window else ""}
        """
        ranked_params = [*(v for pos, n in enumerate(buckets) for v in (n, pos)), a, b, ORDER_PRIME, BUCKET_SPAN,
                         *open_params, *([window] if window else [])]
    lock_sql = ""
    if lock != "none" and connection.features.has_select_for_update:
        lock_sql = "FOR UPDATE OF i SKIP LOCKED"
    sql = f"""
        WITH ranked AS ({ranked})
        SELECT i.id FROM {item_table} i JOIN ranked ON ranked.id = i.id
        WHERE {HAS_ROOM_SQL}
        ORDER BY ranked.bucket, ranked.r, ranked.id
        LIMIT 1
        {lock_sql}
    """
    params = [*ranked_params, AssignmentStatus.LEASED, _at(now), -1, pool.required_per_item]
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return row[0] if row else None


def lease_if_room(pool: WorkPool, worker_id: int, item_id: int, now: datetime, expires: datetime) -> int | None:
    """Insert the worker's lease on the item if a slot is free by this statement's snapshot (taken after the
    caller's row lock was granted): the new assignment's id, or None. Check and insert in one statement."""
    sql = f"""
        INSERT INTO {Assignment._meta.db_table} (pool_id, item_id, worker_id, status, leased_at, expires_at)
        SELECT %s, i.id, %s, %s, %s, %s FROM {WorkItem._meta.db_table} i
        WHERE i.id = %s AND {HAS_ROOM_SQL}
        RETURNING id
    """
    params = [
        pool.pk, worker_id, AssignmentStatus.LEASED, _at(now), _at(expires), item_id,
        AssignmentStatus.LEASED, _at(now), -1, pool.required_per_item,
    ]
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return row[0] if row else None


# ---- submitting -------------------------------------------------------------------------------------------


def count_submission(item_id: int) -> bool | None:
    """Add one submission to the item: whether it is now complete, or None (nothing counted) when it already
    has all its submissions, whatever clock the callers used."""
    sql = f"""
        UPDATE {WorkItem._meta.db_table} SET
            submitted_count = submitted_count + 1,
            complete = (capacity IS NULL OR capacity <> 0) AND submitted_count + 1 >= COALESCE(capacity, (
                SELECT p.required_per_item FROM {WorkPool._meta.db_table} p WHERE p.id = pool_id))
        WHERE id = %s AND (capacity = 0 OR submitted_count < COALESCE(capacity, (
            SELECT p.required_per_item FROM {WorkPool._meta.db_table} p WHERE p.id = pool_id)))
        RETURNING complete
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [item_id])
        row = cursor.fetchone()
    return None if row is None else bool(row[0])


def submit_counted(record: Record, *, item_id: int, worker_id: int, now: datetime, guard: Guard) -> tuple | None:
    """PostgreSQL only: services.submit_in_one_statement's statement. The row (complete, *the record's
    RETURNING columns), or None when the common case does not hold."""
    item_table, asg_table, pool_table = WorkItem._meta.db_table, Assignment._meta.db_table, WorkPool._meta.db_table
    capacity = f"COALESCE(i.capacity, (SELECT p.required_per_item FROM {pool_table} p WHERE p.id = i.pool_id))"
    guard_sql, guard_params = guard.positional()
    record_sql, record_params = record.positional()
    sql = f"""
        WITH item AS (
            SELECT i.id FROM {item_table} i
            WHERE i.id = %s AND NOT i.closed AND (i.capacity = 0 OR i.submitted_count < {capacity})
            FOR UPDATE
        ), lease AS (
            UPDATE {asg_table} a SET status = %s, submitted_at = %s FROM item
            WHERE a.item_id = item.id AND a.worker_id = %s AND a.status = %s AND a.expires_at > %s
              AND NOT EXISTS (SELECT 1 FROM {PoolExclusion._meta.db_table} ex
                              WHERE ex.pool_id = a.pool_id AND ex.worker_id = a.worker_id)
              AND ({guard_sql})
            RETURNING a.item_id
        ), counted AS (
            UPDATE {item_table} i SET submitted_count = i.submitted_count + 1,
                complete = (i.capacity IS NULL OR i.capacity <> 0) AND i.submitted_count + 1 >= {capacity}
            FROM lease WHERE i.id = lease.item_id
            RETURNING i.complete
        ), record AS ({record_sql})
        SELECT counted.complete, record.* FROM record, counted
    """
    at = _at(now)
    params = [item_id, AssignmentStatus.SUBMITTED, at, worker_id, AssignmentStatus.LEASED, at, *guard_params,
              *record_params]
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def renew_late_lease(assignment_id: int, *, item_id: int, worker_id: int, now: datetime, expires: datetime,
                     required_per_item: int) -> bool:
    """Lease an expired or released assignment again if its item still has a free slot, counting everyone
    else's live leases: whether it was renewed. The caller holds the item's row lock."""
    sql = f"""
        UPDATE {Assignment._meta.db_table} SET status = %s, leased_at = %s, expires_at = %s
        WHERE id = %s AND EXISTS (SELECT 1 FROM {WorkItem._meta.db_table} i WHERE i.id = %s AND {HAS_ROOM_SQL})
    """
    params = [
        AssignmentStatus.LEASED, _at(now), _at(expires), assignment_id, item_id,
        AssignmentStatus.LEASED, _at(now), worker_id, required_per_item,
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount == 1


def invalidate_submissions(pool_id: int, worker_id: int) -> list[int]:
    """Mark the worker's submitted assignments in the pool invalidated; the items whose submission this
    statement invalidated (RETURNING: exactly those, so each count drops once)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Assignment._meta.db_table} SET status = %s"
            " WHERE pool_id = %s AND worker_id = %s AND status = %s RETURNING item_id",
            [AssignmentStatus.INVALIDATED, pool_id, worker_id, AssignmentStatus.SUBMITTED],
        )
        return [row[0] for row in cursor.fetchall()]


# ---- reads ------------------------------------------------------------------------------------------------


def submitted_count(pool_id: int, worker_id: int) -> int:
    """How many of the pool's items the worker submitted and that still count: a prepared statement, as a
    listener's progress comes with every rating."""
    with prepared_cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {Assignment._meta.db_table} a"
                       " WHERE a.pool_id = %s AND a.worker_id = %s AND a.status = %s",
                       [pool_id, worker_id, AssignmentStatus.SUBMITTED])
        return cursor.fetchone()[0]
