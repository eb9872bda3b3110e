"""The hand-written SQL of apps.audio: PostgreSQL advisory locks on audio contents.

apps.audio.store decides which locks a store or a discard needs (the two-key space, one class for a
content and one for a bucket of contents, and why) and calls these. Each function is one statement, one
round trip, and holds what it takes until the current transaction ends (the `xact` locks). Call them on
PostgreSQL only; other databases have no advisory locks.

Taking many locks in a chosen order in one statement: `unnest` the keys into rows, ORDER BY them, and
add OFFSET 0 so the planner keeps the ordered subquery as it is (not flattened into the outer count), so
the lock function runs row by row in that order. Two sessions that take their locks in one order never
deadlock on them."""

from __future__ import annotations

from django.db import connection

_EXCLUSIVE_IN_KEY_ORDER = (
    "SELECT count(pg_advisory_xact_lock(%s, key)) "
    "FROM (SELECT unnest(%s::integer[]) AS key ORDER BY 1 OFFSET 0) AS ordered"
)
_IN_LIST_ORDER = (
    "SELECT count(CASE WHEN shared THEN pg_advisory_xact_lock_shared(class, key) ELSE pg_advisory_xact_lock(class, key) END) "
    "FROM (SELECT * FROM unnest(%s::integer[], %s::integer[], %s::boolean[]) WITH ORDINALITY AS t(class, key, shared, n) "
    "ORDER BY n OFFSET 0) AS ordered"
)
_TRY_EXCLUSIVE_AND_SHARED = "SELECT pg_try_advisory_xact_lock(%s, %s) AND pg_try_advisory_xact_lock_shared(%s, %s)"


def lock_exclusive_in_key_order(lock_class: int, keys: list[int]) -> None:
    """Wait for and hold (lock_class, key) exclusively for every key, in ascending key order."""
    with connection.cursor() as cursor:
        cursor.execute(_EXCLUSIVE_IN_KEY_ORDER, [lock_class, keys])


def lock_in_list_order(locks: list[tuple[int, int, bool]]) -> None:
    """Wait for and hold each (class, key, shared) lock, shared or exclusive, in the list's order."""
    with connection.cursor() as cursor:
        cursor.execute(_IN_LIST_ORDER, [[c for c, _, _ in locks], [k for _, k, _ in locks], [s for _, _, s in locks]])


def try_lock_exclusive_and_shared(exclusive: tuple[int, int], shared: tuple[int, int]) -> bool:
    """Without waiting: hold `exclusive` (class, key) exclusively and `shared` shared, if both are free
    of other holders (True); False if either is held (what was taken stays until the transaction ends)."""
    with connection.cursor() as cursor:
        cursor.execute(_TRY_EXCLUSIVE_AND_SHARED, [*exclusive, *shared])
        return cursor.fetchone()[0]
