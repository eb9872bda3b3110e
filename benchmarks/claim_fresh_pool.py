"""How long one claim_next takes on a fresh pool (no planner statistics yet) as the worker's history grows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sori_queues \
        .venv/bin/python benchmarks/claim_fresh_pool.py --items 3000 --history 0,100,400,1600

A brand-new pool once got an anti-join plan that read the worker's whole history for every item, so a claim
took 60-100 ms at a 400-item history and grew with it. For each history length this creates a fresh pool of
--items items, lets one worker submit that many of them, then times --repeat claims (each released again)
and prints the median and the slowest in ms. Flat numbers down the column are the healthy result.
tests/queues/test_claim_cost.py checks the same thing without a clock (rows touched by the plan); this script
prints the time it costs. The pools and the benchmark's user are deleted afterwards.
"""

import argparse
import os
import statistics
import sys
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

USERNAME = "bench-claim-fresh"


def measure(items: int, history: int, repeat: int, worker) -> list[float]:
    pool = services.create_pool(name=f"benchmark fresh pool, history {history}", kind="benchmark", required_per_item=5)
    try:
        services.add_items(pool, items)
        for _ in range(history):
            assignment = services.claim_next(pool, worker)
            with transaction.atomic():
                services.mark_submitted(services.lease_for_submission(assignment.item, worker))
        timings = []
        for _ in range(repeat):
            started = time.perf_counter()
            assignment = services.claim_next(pool, worker)
            timings.append((time.perf_counter() - started) * 1000)
            services.release(assignment)
        return timings
    finally:
        pool.delete()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--history", default="0,100,400", help="comma-separated history lengths")
    parser.add_argument("--repeat", type=int, default=7, help="claims timed per history length")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        print(f"note: running on {connection.vendor}; the numbers that matter come from PostgreSQL (set DATABASE_URL)")
    call_command("migrate", verbosity=0)
    worker, _ = User.objects.get_or_create(username=USERNAME)
    print(f"database: {connection.vendor} {connection.settings_dict.get('NAME')}; items per pool: {args.items}")
    print(f"{'history':>8} {'median ms':>10} {'max ms':>8}")
    try:
        for history in [int(h) for h in args.history.split(",") if h.strip()]:
            timings = measure(args.items, history, args.repeat, worker)
            print(f"{history:>8} {statistics.median(timings):>10.1f} {max(timings):>8.1f}", flush=True)
    finally:
        User.objects.filter(username=USERNAME).delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
