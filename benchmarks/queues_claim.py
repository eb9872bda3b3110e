"""Load benchmark of the assignment engine's hot path: many workers claiming and submitting at once.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sori_queues \
        .venv/bin/python benchmarks/queues_claim.py --items 5000 --workers 1,4,16,50

For each concurrency level it creates a fresh pool (K=5 by default) of --items items and races that many
threads, one per worker; each loops claim_next -> (transaction: lease_for_submission + mark_submitted)
until the pool has nothing left for it or --seconds have passed. It prints p50/p95 latency per call,
submissions per second, and an invariant check: no item over K submissions, submitted + live leases never
over K (also watched by a separate thread during the race), the denormalised counter equal to the rows, and
no submission lost (every submission a thread saw succeed is in the database). The pools and the
benchmark's users are deleted afterwards. Runs migrations on the target database first.
"""

import argparse
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.queues import services  # noqa: E402
from apps.queues.models import Assignment, AssignmentStatus, WorkItem, WorkPool  # noqa: E402

USER_PREFIX = "bench-queues-"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    index = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[index]


def over_capacity_items(pool: WorkPool) -> int:
    """Items whose submitted + live leases exceed K, counted in one statement (one consistent snapshot)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT COUNT(*) FROM (
                SELECT a.item_id FROM {Assignment._meta.db_table} a
                WHERE a.pool_id = %s AND (a.status = 'submitted' OR (a.status = 'leased' AND a.expires_at > now()))
                GROUP BY a.item_id HAVING COUNT(*) > %s
            ) AS over
            """,
            [pool.pk, pool.required_per_item],
        )
        return cursor.fetchone()[0]


def run_level(n_workers: int, args, users: list) -> dict:
    pool = services.create_pool(name=f"benchmark {n_workers} workers", kind="benchmark", required_per_item=args.k)
    services.add_items(pool, args.items)
    claim_ms: list[list[float]] = [[] for _ in range(n_workers)]
    submit_ms: list[list[float]] = [[] for _ in range(n_workers)]
    submitted_ok = [0] * n_workers
    errors: list[str] = []
    start = threading.Barrier(n_workers + 1)
    deadline_box: list[float] = [0.0]
    stop_watch = threading.Event()
    watched = {"checks": 0, "worst": 0}

    def work(index: int) -> None:
        worker = users[index]
        try:
            start.wait()
            while time.monotonic() < deadline_box[0]:
                t0 = time.perf_counter()
                assignment = services.claim_next(pool, worker)
                claim_ms[index].append((time.perf_counter() - t0) * 1000)
                if assignment is None:
                    break
                t0 = time.perf_counter()
                with transaction.atomic():
                    held = services.lease_for_submission(assignment.item, worker)
                    services.mark_submitted(held)
                submit_ms[index].append((time.perf_counter() - t0) * 1000)
                submitted_ok[index] += 1
        except Exception as exc:  # reported below; the run then fails
            errors.append(f"worker {index}: {exc!r}")
        finally:
            connection.close()

    def watch() -> None:
        try:
            while not stop_watch.is_set():
                watched["worst"] = max(watched["worst"], over_capacity_items(pool))
                watched["checks"] += 1
                stop_watch.wait(0.1)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n_workers)]
    watcher = threading.Thread(target=watch)
    for thread in threads:
        thread.start()
    watcher.start()
    deadline_box[0] = time.monotonic() + args.seconds
    t_start = time.perf_counter()
    start.wait()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - t_start
    stop_watch.set()
    watcher.join()

    pool_items = WorkItem.objects.filter(pool=pool)
    db_submitted = Assignment.objects.filter(pool=pool, status=AssignmentStatus.SUBMITTED).count()
    over_k = pool_items.filter(submitted_count__gt=args.k).count()
    counter_mismatch = 0
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT COUNT(*) FROM {WorkItem._meta.db_table} i
            WHERE i.pool_id = %s AND i.submitted_count <> (
                SELECT COUNT(*) FROM {Assignment._meta.db_table} a WHERE a.item_id = i.id AND a.status = 'submitted')
            """,
            [pool.pk],
        )
        counter_mismatch = cursor.fetchone()[0]
    claims = [v for per in claim_ms for v in per]
    submits = [v for per in submit_ms for v in per]
    result = {
        "workers": n_workers,
        "elapsed": elapsed,
        "claims": len(claims),
        "submissions": sum(submitted_ok),
        "claim_p50": percentile(claims, 0.50),
        "claim_p95": percentile(claims, 0.95),
        "submit_p50": percentile(submits, 0.50),
        "submit_p95": percentile(submits, 0.95),
        "throughput": sum(submitted_ok) / elapsed,
        "complete_items": pool_items.filter(complete=True).count(),
        "checks": {
            "no item over K submissions": over_k == 0,
            "submitted + live leases never over K (watched during the race)": watched["worst"] == 0
            and over_capacity_items(pool) == 0,
            "submitted_count equals the submitted rows": counter_mismatch == 0,
            "no submission lost": db_submitted == sum(submitted_ok),
            "no worker raised": not errors,
        },
        "watch_checks": watched["checks"],
        "errors": errors[:5],
    }
    pool.delete()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--workers", default="1,4,16,50", help="comma-separated concurrency levels")
    parser.add_argument("--k", type=int, default=5, help="submissions required per item")
    parser.add_argument("--seconds", type=float, default=15.0, help="time budget per concurrency level")
    args = parser.parse_args()
    levels = [int(part) for part in args.workers.split(",") if part.strip()]

    if connection.vendor != "postgresql":
        print(f"note: running on {connection.vendor}; the numbers that matter come from PostgreSQL (set DATABASE_URL)")
    call_command("migrate", verbosity=0)
    users = [User.objects.get_or_create(username=f"{USER_PREFIX}{i:03d}")[0] for i in range(max(levels))]
    print(f"database: {connection.vendor} {connection.settings_dict.get('NAME')}; items per pool: {args.items}; "
          f"K={args.k}; up to {args.seconds:.0f}s per level")
    header = (f"{'workers':>7} {'claims':>7} {'subs':>7} {'claim p50':>10} {'claim p95':>10} "
              f"{'submit p50':>11} {'submit p95':>11} {'subs/s':>8} {'complete':>8}  invariants")
    print(header)
    failed = False
    try:
        for n_workers in levels:
            r = run_level(n_workers, args, users)
            ok = all(r["checks"].values())
            failed |= not ok
            print(
                f"{r['workers']:>7} {r['claims']:>7} {r['submissions']:>7} {r['claim_p50']:>8.1f}ms "
                f"{r['claim_p95']:>8.1f}ms {r['submit_p50']:>9.1f}ms {r['submit_p95']:>9.1f}ms "
                f"{r['throughput']:>8.0f} {r['complete_items']:>8}  "
                + ("ok" if ok else "FAILED: " + "; ".join(k for k, v in r["checks"].items() if not v))
                + f" ({r['watch_checks']} watcher checks)",
                flush=True,
            )
            for error in r["errors"]:
                print(f"    {error}")
    finally:
        User.objects.filter(username__startswith=USER_PREFIX).delete()
    print("invariants:", "all held" if not failed else "VIOLATED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
