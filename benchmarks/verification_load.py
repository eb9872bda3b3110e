"""Load benchmark of three-annotator verification over HTTP.

Creates (drops first) the PostgreSQL database sori_verification_bench, migrates it, seeds 5,000 items of
an HPSU project and 50 annotators with API tokens, starts gunicorn (gthread) on 127.0.0.1:8102, and
drives `POST /api/verification/projects/{id}/next/` once per annotator and then
`POST /api/verification/items/{id}/reviews/` (its answer carries the next item; --ask-next for next + review
per item) with 1, 4, 16 and 50 concurrent annotators. Prints p50/p95 latency of each call per level, then checks
in the database that no item has more than three reviews or a repeated reviewer, and stops the server.

    .venv/bin/python benchmarks/verification_load.py [--items 5000] [--seconds 20] [--levels 1,4,16,50]
"""

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TEMPLATE = None  # --template
DB_NAME = "sori_verification_bench"
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
HOST, PORT = "127.0.0.1", 8102


def prepare_env(data_dir: str) -> dict:
    env = dict(os.environ)
    env.update(DATABASE_URL=f"{PG}/{DB_NAME}", SORI_DATA_DIR=data_dir, DEBUG="1", LOG_LEVEL="WARNING",
               DB_CONN_MAX_AGE="60", AXES_ENABLED="0", SORI_JOB_RUNNER="sync")
    env.pop("REDIS_URL", None)
    return env


def recreate_database() -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB_NAME}"' + (f' TEMPLATE "{TEMPLATE}"' if TEMPLATE else ""))


def seed(env: dict, items: int, annotators: int) -> tuple[int, list[str]]:
    """Seed through the ORM in this process (one audio asset shared by every item: the benchmark measures
    the assignment and review path, not audio import)."""
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from rest_framework.authtoken.models import Token

    from apps.accounts.services import user_upsert
    from apps.audio.services import import_audio_file
    from apps.queues.services import add_items
    from apps.verification.models import ItemImport, VerificationItem
    from apps.verification.services import create_project
    from tests.conftest import write_wav

    with tempfile.TemporaryDirectory() as tmp:
        asset, _ = import_audio_file(write_wav(Path(tmp) / "bench.wav", seconds=0.5), name="bench.wav")
    project = create_project(name="Load benchmark")
    batch = ItemImport.objects.create(project=project, file_name="seeded", file_sha256="0" * 64, item_count=items)
    work_items = add_items(project.pool, items)
    record = {"choice": ["Complain", "Reject", "Question", "Thanks"]}
    VerificationItem.objects.bulk_create([
        VerificationItem(
            project=project, work_item_id=w, external_id=f"bench-{n}", position=n, audio=asset, audio_path="bench.wav",
            task="Intent", domain="Discourse Context", format="single", language="en",
            question="Identify the speaker's purpose.", options=record["choice"], answers=["Complain"],
            tiers={"Reject": "similar", "Question": "middle", "Thanks": "opposite"}, metric="SC_type_eval",
            record=json.dumps({"id": f"bench-{n}", **record}), item_import=batch,
        )
        for n, w in enumerate(work_items, start=1)
    ], batch_size=1000)
    tokens = []
    for i in range(annotators):
        user, _ = user_upsert(username=f"bench{i}", roles=["annotator"], password="bench-password-1")
        tokens.append(Token.objects.get_or_create(user=user)[0].key)
    from django.db import connections

    connections.close_all()
    return project.pk, tokens


def port_in_use() -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex((HOST, PORT)) == 0


def start_server(env: dict) -> subprocess.Popen:
    if port_in_use():
        raise SystemExit(f"{HOST}:{PORT} is already taken by another process; free it or pass --port")
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi:application", "--bind", f"{HOST}:{PORT}",
         "--worker-class", "gthread", "--workers", "2", "--threads", "16", "--log-level", "warning",
         "--keep-alive", "30"],
        cwd=ROOT, env=env, start_new_session=True,
    )
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            conn = http.client.HTTPConnection(HOST, PORT, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status < 500:
                return server
        except OSError:
            time.sleep(0.3)
    stop_server(server)
    raise SystemExit("the server did not come up on 127.0.0.1:8102")


def stop_server(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)


def annotator_loop(token: str, project_id: int, stop_at: float, next_times: list, review_times: list, errors: list,
                   ask_next: bool = False):
    """One `next` to start, then one call per item: the review, whose answer carries the next item. With
    ask_next, the older cycle: next + review per item."""
    conn = http.client.HTTPConnection(HOST, PORT, timeout=60)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def call(path: str, payload: dict | None, times: list):
        t0 = time.perf_counter()
        conn.request("POST", path, body=json.dumps(payload) if payload is not None else b"", headers=headers)
        response = conn.getresponse()
        body = response.read()
        times.append(time.perf_counter() - t0)
        return response.status, body

    n, item = 0, None
    while time.time() < stop_at:
        if item is None or ask_next:
            status, body = call(f"/api/verification/projects/{project_id}/next/", None, next_times)
            if status == 204:
                break
            if status != 200:
                errors.append(f"next {status}: {body[:200]!r}")
                break
            item = json.loads(body)
        n += 1
        payload = {"decision": "approve"} if n % 10 else {"decision": "reject", "reasons": ["ambiguous_question"]}
        status, body = call(f"/api/verification/items/{item['id']}/reviews/", payload, review_times)
        if status not in (200, 201):
            errors.append(f"review {status}: {body[:200]!r}")
            break
        item = json.loads(body)["next"]
        if item is None:
            break
    conn.close()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_level(concurrency: int, tokens: list[str], project_id: int, seconds: float, ask_next: bool = False) -> dict:
    next_times, review_times, errors = [], [], []
    stop_at = time.time() + seconds
    threads = [threading.Thread(target=annotator_loop, args=(tokens[i], project_id, stop_at, next_times, review_times, errors, ask_next))
               for i in range(concurrency)]
    started = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.time() - started
    return {"concurrency": concurrency, "reviews": len(review_times), "errors": errors,
            "next_p50": pct(next_times, 0.5), "next_p95": pct(next_times, 0.95),
            "review_p50": pct(review_times, 0.5), "review_p95": pct(review_times, 0.95),
            "reviews_per_s": len(review_times) / elapsed}


def check_invariants(env: dict) -> tuple[bool, str]:
    import psycopg

    with psycopg.connect(env["DATABASE_URL"]) as conn:
        over = conn.execute("SELECT COUNT(*) FROM (SELECT item_id FROM verification_review GROUP BY item_id HAVING COUNT(*) > 3) x").fetchone()[0]
        dup = conn.execute("SELECT COUNT(*) FROM (SELECT item_id, annotator_id FROM verification_review GROUP BY 1, 2 HAVING COUNT(*) > 1) x").fetchone()[0]
        total = conn.execute("SELECT COUNT(*) FROM verification_review").fetchone()[0]
        settled = conn.execute("SELECT COUNT(*) FROM verification_verificationitem WHERE status <> 'pending'").fetchone()[0]
        bad_settle = conn.execute(
            "SELECT COUNT(*) FROM verification_verificationitem i WHERE status <> 'pending' AND "
            "(SELECT COUNT(*) FROM verification_review r WHERE r.item_id = i.id) <> 3").fetchone()[0]
    ok = over == 0 and dup == 0 and bad_settle == 0
    return ok, (f"invariants: {total} reviews, {settled} items settled; items with >3 reviews: {over}; "
            f"repeated reviewer: {dup}; settled without exactly 3 reviews: {bad_settle} -> {'OK' if ok else 'VIOLATED'}")


def main() -> int:
    global PORT, DB_NAME, TEMPLATE
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=20.0, help="duration of each concurrency level")
    parser.add_argument("--levels", default="1,4,16,50")
    parser.add_argument("--ask-next", action="store_true",
                        help="the older cycle, next + review per item (default: the review's answer carries the next item)")
    parser.add_argument("--port", type=int, default=PORT)
    parser.add_argument("--db", default=DB_NAME, help=f"the PostgreSQL database to (re)create (default {DB_NAME})")
    parser.add_argument("--template", default=None,
                        help="create the database as a copy of this migrated one (faster; the smoke tests do)")
    args = parser.parse_args()
    DB_NAME, TEMPLATE = args.db, args.template
    PORT = args.port
    levels = [int(x) for x in args.levels.split(",")]
    data_dir = tempfile.mkdtemp(prefix="sori-vbench-")
    env = prepare_env(data_dir)
    t0 = time.time()
    recreate_database()
    project_id, tokens = seed(env, args.items, max(levels))
    print(f"seeded {args.items} items and {max(levels)} annotators in {time.time() - t0:.1f} s "
          f"(database {DB_NAME}); server: gunicorn gthread 2 workers x 16 threads on {HOST}:{PORT}")
    server = start_server(env)
    errors: list[str] = []
    try:
        print("cycle: " + ("next + review per item" if args.ask_next else "review (its answer hands on the next item)"))
        print(f"{'annotators':>10} {'reviews':>8} {'rev/s':>7} {'next p50':>9} {'next p95':>9} {'review p50':>11} {'review p95':>11}  (ms)")
        for level in levels:
            r = run_level(level, tokens, project_id, args.seconds, args.ask_next)
            errors += r["errors"]
            print(f"{r['concurrency']:>10} {r['reviews']:>8} {r['reviews_per_s']:>7.1f} {r['next_p50']:>9.1f} "
                  f"{r['next_p95']:>9.1f} {r['review_p50']:>11.1f} {r['review_p95']:>11.1f}"
                  + (f"  errors: {len(r['errors'])} e.g. {r['errors'][0]}" if r["errors"] else ""))
    finally:
        stop_server(server)
    ok, report = check_invariants(env)
    print(report)
    return 0 if ok and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
