#!/usr/bin/env python
"""Load benchmark of MOS listening over HTTP: listeners racing through the rating cycle, one rating call per
clip (its answer carrying the next clip, and the rating itself meeting the playback gate); `--cycle
playback` adds the playback report the page sends, `--cycle three` is next -> playback -> rating. Prints per
level the cycles per second, the cycle's p50/p95 and each call's.

By default it brings up its own server: it (re)creates the PostgreSQL database `sori_listening_bench`,
migrates it, seeds one 5,000-clip test per concurrency level (K = 5) plus a small test that is rated to
the end, starts gunicorn (gthread, 2 workers x 8 threads) on 127.0.0.1:8101, runs 1, 4 and 16 concurrent
listeners for 30 s each (token auth, keep-alive HTTP; --levels 1,4,16,50 for more), stops the server and
checks the invariants in the database:

- no clip has more than five ratings, nor two from one listener; submitted_count equals the ratings;
- submitted ratings plus live leases never exceed five;
- no rating lost: every 201 the clients received is a row, and there is no row without a 201;
- the completion run ends with every clip at exactly five distinct listeners;
- the export an admin downloads (tables only, over HTTP with a session, timed) has one rating per 201 the
  clients received, no clip over five ratings and no listener twice on a clip.

    .venv/bin/python benchmarks/listening_load.py                 # the full run (about 2 minutes)
    .venv/bin/python benchmarks/listening_load.py --seconds 5 --clips 200 --levels 1,4   # a quick look
    .venv/bin/python benchmarks/listening_load.py --target http://host:port --no-server   # see --help

Run it from the repository root with the project's virtualenv.
"""

from __future__ import annotations

import argparse
import csv
import http.client
import io
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import zipfile
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlencode, urlparse

ROOT = Path(__file__).resolve().parent.parent
ADMIN_PASSWORD = "bench-admin-password-0123"  # the seeded admin who downloads the export
CYCLES = {
    "rating": "rating (its answer hands on the next clip)",
    "playback": "playback + rating (the rating hands on the next clip)",
    "three": "next + playback + rating",
}
PG = "postgres://postgres@127.0.0.1:5432"


# --- the server side: database, seed, gunicorn ----------------------------------------------------------

def server_env(db_name: str) -> dict:
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": f"{PG}/{db_name}",
        "DEBUG": "0",
        "SECRET_KEY": "listening-benchmark-only-key-0123456789abcdefghijklmnopqrstuvwxyz",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "DB_CONN_MAX_AGE": "60",
        "LOG_LEVEL": "WARNING",
        "SORI_JOB_RUNNER": "sync",
        "MEDIA_ROOT": str(Path("/tmp") / f"{db_name}-media"),
        "STATIC_ROOT": str(Path("/tmp") / f"{db_name}-static"),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    })
    env.pop("REDIS_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    return env


def recreate_database(db_name: str, template: str | None = None) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{db_name}"' + (f' TEMPLATE "{template}"' if template else ""))


def settle(db_name: str) -> None:
    """After the seed, before the first level: the seed writes the tests' rows straight to the database (an
    import would ANALYZE them itself, and autovacuum, off on some machines, would get there in time), so
    give the planner its statistics, and flush the seed's writes, so the first level measures the rating
    cycle rather than the seed's aftermath (it measured 42 ms p50 at one listener without this, 18 ms with)."""
    import psycopg

    with psycopg.connect(f"{PG}/{db_name}", autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        conn.execute("CHECKPOINT")


def seed(clips: int, levels: list[int], completion_clips: int, completion_listeners: int) -> dict:
    """Runs inside a Django process (see --seed). One test per level, fresh listeners with API tokens."""
    import math
    import struct
    import tempfile
    import wave

    import django

    django.setup()
    from django.contrib.auth.models import Group
    from rest_framework.authtoken.models import Token

    from apps.accounts.models import User
    from apps.audio.services import import_audio_file
    from apps.listening import services as listening
    from apps.listening.models import Clip, ListeningTest
    from apps.queues import services as queues

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tone.wav"
        with wave.open(str(path), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(n / 8))) for n in range(4000)))
        asset, _ = import_audio_file(path, name="tone.wav")
    group, _ = Group.objects.get_or_create(name="listener")

    def make_test(name: str, n: int, listeners: list) -> int:
        """A published test (tests start as drafts) whose instructions the listeners agreed to."""
        pool = queues.create_pool(name=name, kind="listening", required_per_item=5, lease_seconds=900)
        test = ListeningTest.objects.create(name=name, pool=pool, clips_expected=n)
        items = queues.add_items(pool, n)
        Clip.objects.bulk_create([
            Clip(test=test, work_item_id=item, clip_id=f"{name}-{i:05d}", asset=asset, audio_name="tone.wav",
                 text=f"sentence {i}", speaker=f"spk{i % 40}", source_type="tts", style="read", category="C")
            for i, item in enumerate(items)
        ], batch_size=1000)
        listening.publish_test(test=test, acting_user=None)
        for user in listeners:
            listening.record_consent(test=test, acting_user=user)
        return test.pk

    def make_listeners(prefix: str, n: int) -> list:
        users = User.objects.bulk_create([User(username=f"{prefix}-{i:03d}") for i in range(n)])
        for user in users:
            user.set_unusable_password()
        User.objects.bulk_update(users, ["password"])
        group.user_set.add(*users)
        return users

    def tokens(users: list) -> list[str]:
        return [Token.objects.create(user=u).key for u in users]

    admin = User.objects.create_user(username="bench-admin", password=ADMIN_PASSWORD)
    admin.groups.add(Group.objects.get_or_create(name="admin")[0])
    plan = {"levels": {}, "completion": None, "admin": admin.username}
    for level in levels:
        users = make_listeners(f"b{level}", level)
        plan["levels"][str(level)] = {"test": make_test(f"bench-{level}", clips, users), "tokens": tokens(users)}
    if completion_clips:
        users = make_listeners("bdone", completion_listeners)
        plan["completion"] = {"test": make_test("bench-completion", completion_clips, users), "tokens": tokens(users)}
    return plan


class Server:
    def __init__(self, env: dict, port: int, workers: int, threads: int):
        self.env, self.port, self.workers, self.threads = env, port, workers, threads
        self.proc: subprocess.Popen | None = None

    def __enter__(self):
        gunicorn = Path(sys.executable).with_name("gunicorn")
        self.proc = subprocess.Popen(
            [str(gunicorn), "config.wsgi:application", "-b", f"127.0.0.1:{self.port}", "-k", "gthread",
             "--workers", str(self.workers), "--threads", str(self.threads), "--keep-alive", "30",
             "--log-level", "warning", "--timeout", "120"],
            cwd=ROOT, env=self.env,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("gunicorn exited during start") from None
                time.sleep(0.3)
        raise RuntimeError("gunicorn did not come up within 60 s")

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


# --- the client side ------------------------------------------------------------------------------------

class Listener(threading.Thread):
    def __init__(self, base: str, token: str, test_id: int, deadline: float | None, stats: dict, lock: threading.Lock,
                 cycle: str = "rating"):
        super().__init__(daemon=True)
        self.cycle = cycle
        url = urlparse(base)
        self.host, self.port = url.hostname, url.port or 80
        self.token, self.test_id, self.deadline = token, test_id, deadline
        self.stats, self.lock = stats, lock
        self.rng = random.Random(token)
        self.created = 0
        self.errors: list[str] = []

    def call(self, conn, kind: str, path: str, body: dict | None = None):
        payload = json.dumps(body).encode() if body is not None else b""
        headers = {"Authorization": f"Token {self.token}", "Content-Type": "application/json", "Accept": "application/json"}
        start = time.perf_counter()
        conn.request("POST", path, body=payload, headers=headers)
        response = conn.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - start
        with self.lock:
            self.stats[kind].append(elapsed)
        return response.status, data

    def run(self):
        """One round trip per clip: the rating, whose answer carries the next clip (one `next` to start).
        Cycle "playback" reports playback before each rating (as the page does); "three" asks `next` too."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        clip = None
        try:
            while self.deadline is None or time.time() < self.deadline:
                started = time.perf_counter()
                if clip is None or self.cycle == "three":
                    status, data = self.call(conn, "next", f"/api/listening/tests/{self.test_id}/next/")
                    if status == 204:
                        break
                    if status != 200:
                        self.errors.append(f"next {status} {data[:200]!r}")
                        break
                    clip = json.loads(data)["clip"]["id"]
                if self.cycle != "rating":
                    status, data = self.call(conn, "playback", f"/api/listening/clips/{clip}/playback/")
                    if status != 200:
                        self.errors.append(f"playback {status} {data[:200]!r}")
                        break
                status, data = self.call(conn, "rating", f"/api/listening/clips/{clip}/ratings/", {"score": self.rng.randint(1, 5)})
                if status != 201:
                    self.errors.append(f"rating {status} {data[:200]!r}")
                    break
                self.created += 1
                with self.lock:
                    self.stats["cycle"].append(time.perf_counter() - started)
                handed_on = json.loads(data)["next"]
                if handed_on is None:
                    break
                clip = handed_on["clip"]["id"]
        except Exception as exc:  # reported with the level's results
            self.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            conn.close()


def run_level(base: str, test_id: int, tokens: list[str], seconds: float | None, cycle: str = "rating") -> dict:
    stats: dict[str, list[float]] = defaultdict(list)
    lock = threading.Lock()
    deadline = time.time() + seconds if seconds else None
    listeners = [Listener(base, token, test_id, deadline, stats, lock, cycle) for token in tokens]
    start = time.perf_counter()
    for listener in listeners:
        listener.start()
    for listener in listeners:
        listener.join()
    wall = time.perf_counter() - start
    return {
        "wall": wall,
        "stats": stats,
        "created": sum(listener.created for listener in listeners),
        "errors": [e for listener in listeners for e in listener.errors],
    }


def download_export(base: str, username: str, test_id: int) -> tuple[float, bytes]:
    """Log in as the admin (a session, as in a browser) and download the test's export without audio, as
    the dashboard's link does; returns (seconds for the download, the zip)."""
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=600)
    conn.request("GET", "/login/")
    page = conn.getresponse()
    html = page.read().decode()
    cookies = {c.split("=", 1)[0]: c.split("=", 1)[1].split(";")[0] for c in page.headers.get_all("Set-Cookie") or []}
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    form = urlencode({"username": username, "password": ADMIN_PASSWORD, "csrfmiddlewaretoken": token})
    conn.request("POST", "/login/", body=form, headers={
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": f"csrftoken={cookies['csrftoken']}"})
    answer = conn.getresponse()
    answer.read()
    session = next((c for c in answer.headers.get_all("Set-Cookie") or [] if c.startswith("sessionid=")), None)
    if answer.status != 302 or session is None:
        raise RuntimeError(f"admin login failed: {answer.status}")
    started = time.perf_counter()
    conn.request("GET", f"/listening/manage/tests/{test_id}/export.zip?audio=0",
                 headers={"Cookie": session.split(";")[0]})
    response = conn.getresponse()
    data = response.read()
    elapsed = time.perf_counter() - started
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"export answered {response.status}: {data[:200]!r}")
    return elapsed, data


def check_export(data: bytes, created: int) -> list[str]:
    """The export's ratings.csv against what the clients were told: one row per 201, no clip over five
    ratings, no listener twice on a clip."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        name = next(n for n in archive.namelist() if n.endswith("/ratings.csv"))
        rows = list(csv.DictReader(io.TextIOWrapper(archive.open(name), encoding="utf-8")))
    problems = []
    per_clip = Counter(row["clip_id"] for row in rows)
    if len(rows) != created:
        problems.append(f"export has {len(rows)} ratings, the clients got {created} 201s")
    if over := [clip for clip, n in per_clip.items() if n > 5]:
        problems.append(f"export: {len(over)} clips with more than five ratings")
    if len({(row["clip_id"], row["listener"]) for row in rows}) != len(rows):
        problems.append("export: a listener rated a clip twice")
    return problems


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))] * 1000


# --- invariants ------------------------------------------------------------------------------------------

def check_invariants(db_url: str, test_id: int, client_created: int, *, require_complete: bool) -> list[str]:
    import psycopg

    problems = []
    with psycopg.connect(db_url) as conn:
        rows = conn.execute(
            """
            SELECT c.id, wi.submitted_count,
                   COUNT(r.id) AS ratings, COUNT(DISTINCT r.listener_id) AS listeners,
                   (SELECT COUNT(*) FROM queues_assignment a
                     WHERE a.item_id = wi.id AND a.status = 'leased' AND a.expires_at > now()) AS live
            FROM listening_clip c JOIN queues_workitem wi ON wi.id = c.work_item_id
            LEFT JOIN listening_rating r ON r.clip_id = c.id
            WHERE c.test_id = %s GROUP BY c.id, wi.id
            """,
            [test_id],
        ).fetchall()
    total = sum(r[2] for r in rows)
    over = [r for r in rows if r[2] > 5]
    dup = [r for r in rows if r[2] != r[3]]
    drift = [r for r in rows if r[1] != r[2]]
    overbooked = [r for r in rows if r[1] + r[4] > 5]
    if over:
        problems.append(f"{len(over)} clips with more than 5 ratings")
    if dup:
        problems.append(f"{len(dup)} clips rated twice by one listener")
    if drift:
        problems.append(f"{len(drift)} clips whose submitted_count differs from their ratings")
    if overbooked:
        problems.append(f"{len(overbooked)} clips with submitted + live leases above 5")
    if total != client_created:
        problems.append(f"clients got {client_created} x 201 but the database holds {total} ratings")
    if require_complete:
        incomplete = [r for r in rows if r[2] != 5]
        if incomplete:
            problems.append(f"{len(incomplete)} clips did not end with exactly 5 ratings")
    return problems


# --- main ------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clips", type=int, default=5000, help="clips per level's test (default 5000)")
    parser.add_argument("--levels", default="1,4,16", help="concurrent listeners per run (default 1,4,16)")
    parser.add_argument("--seconds", type=float, default=30, help="how long each level runs (default 30)")
    parser.add_argument("--completion-clips", type=int, default=100, help="clips of the run-to-the-end test")
    parser.add_argument("--completion-listeners", type=int, default=16)
    parser.add_argument("--db", default="sori_listening_bench")
    parser.add_argument("--template", default=None,
                        help="create the database as a copy of this migrated one (faster; the smoke tests do)")
    parser.add_argument("--port", type=int, default=8101)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=8, help="gunicorn threads per worker (default 8: 2 x 8, as the issue ran both systems)")
    parser.add_argument("--no-server", action="store_true",
                        help="do not create/seed/start anything: target --target, seeded with --seed beforehand")
    parser.add_argument("--target", default=None, help="base URL of a running server (with --no-server)")
    parser.add_argument("--plan", default=None,
                        help="with --no-server: a JSON file with the plan that `--seed` prints (run it with the "
                             "server's DATABASE_URL)")
    parser.add_argument("--cycle", choices=sorted(CYCLES), default="rating",
                        help="the calls per clip: rating (default; the rating's answer carries the next clip), "
                             "playback (playback + rating, as the page), three (next + playback + rating)")
    parser.add_argument("--seed", action="store_true", help="only seed the database of DATABASE_URL and print the plan")
    args = parser.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",") if x.strip()]

    if args.seed:  # child process: print the plan as JSON
        print(json.dumps(seed(args.clips, levels, args.completion_clips, args.completion_listeners)))
        return 0

    env = server_env(args.db)
    Path(env["STATIC_ROOT"]).mkdir(parents=True, exist_ok=True)
    db_url = env["DATABASE_URL"]
    started = time.perf_counter()
    if args.no_server:
        if not (args.target and args.plan):
            parser.error("--no-server needs --target and --plan")
        base, plan = args.target.rstrip("/"), json.loads(Path(args.plan).read_text())
        server = None
    else:
        base = f"http://127.0.0.1:{args.port}"
        print(f"database {args.db}: recreating, migrating, seeding {len(levels)} x {args.clips} clips ...", flush=True)
        recreate_database(args.db, args.template)
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        # A DEBUG=0 server refuses to start without collected static files (config/wsgi.py).
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
        seeded = subprocess.run(
            [sys.executable, __file__, "--seed", "--clips", str(args.clips), "--levels", args.levels,
             "--completion-clips", str(args.completion_clips), "--completion-listeners", str(args.completion_listeners)],
            cwd=ROOT, env=env, check=True, capture_output=True, text=True,
        )
        plan = json.loads(seeded.stdout.strip().splitlines()[-1])
        settle(args.db)
        server = Server(env, args.port, args.workers, args.threads)
        print(f"setup took {time.perf_counter() - started:.1f} s; gunicorn gthread {args.workers} workers x "
              f"{args.threads} threads on {base}", flush=True)

    results = {}
    failures: list[str] = []
    ctx = server if server is not None else _Null()
    with ctx:
        print(f"\ncycle: {CYCLES[args.cycle]}")
        print(f"{'listeners':>9} {'cycles/s':>9} {'cycle p50/p95 ms':>17} {'req/s':>7}   "
              f"{'next p50/p95 ms':>16} {'playback p50/p95':>17} {'rating p50/p95':>15} {'ratings':>8}  errors")
        for level in levels:
            spec = plan["levels"][str(level)]
            result = run_level(base, spec["test"], spec["tokens"], args.seconds, args.cycle)
            results[level] = result
            s = result["stats"]
            requests = sum(len(v) for k, v in s.items() if k != "cycle")
            print(
                f"{level:>9} {result['created'] / result['wall']:>9.1f} {pct(s['cycle'], 50):>8.1f}/{pct(s['cycle'], 95):<8.1f} "
                f"{requests / result['wall']:>7.1f}   "
                f"{pct(s['next'], 50):>7.1f}/{pct(s['next'], 95):<8.1f} {pct(s['playback'], 50):>8.1f}/{pct(s['playback'], 95):<8.1f} "
                f"{pct(s['rating'], 50):>7.1f}/{pct(s['rating'], 95):<7.1f} {result['created']:>8}  {len(result['errors'])}",
                flush=True,
            )
            failures += [f"level {level}: {e}" for e in result["errors"][:5]]
        completion = None
        if plan.get("completion"):
            spec = plan["completion"]
            completion = run_level(base, spec["test"], spec["tokens"], None, args.cycle)
            print(f"\ncompletion run: {len(spec['tokens'])} listeners rated a {args.completion_clips}-clip test to the end: "
                  f"{completion['created']} ratings in {completion['wall']:.1f} s "
                  f"({completion['created'] / completion['wall']:.1f}/s), {len(completion['errors'])} errors")
        if plan.get("admin"):
            last = levels[-1]
            seconds, data = download_export(base, plan["admin"], plan["levels"][str(last)]["test"])
            problems = check_export(data, results[last]["created"])
            print(f"\nexport of the {last}-listener test ({args.clips} clips, {results[last]['created']} ratings, "
                  f"tables only): {seconds:.2f} s, {'checked OK' if not problems else '; '.join(problems)}")
            failures += problems
            failures += [f"completion: {e}" for e in completion["errors"][:5]]

    print("\ninvariant check (database):")
    for level in levels:
        problems = check_invariants(db_url, plan["levels"][str(level)]["test"], results[level]["created"], require_complete=False)
        print(f"  {level:>2} listeners: {'OK' if not problems else '; '.join(problems)}")
        failures += problems
    if plan.get("completion"):
        problems = check_invariants(db_url, plan["completion"]["test"], completion["created"], require_complete=True)
        print(f"  completion: {'OK, every clip has exactly 5 distinct listeners' if not problems else '; '.join(problems)}")
        failures += problems
    print(f"\ntotal time {time.perf_counter() - started:.1f} s")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("all invariants hold")
    return 0


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
