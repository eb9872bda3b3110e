"""KMMAU construction benchmark.

1. Rule-based build: a synthetic corpus of 10,000 utterances (Korean sentences from a small vocabulary,
   speaker metadata on each), all five rule-based capabilities; prints questions per second and the peak
   memory (resident set of this process, which includes the kiwipiepy model, and Python's own peak
   allocation during the build from tracemalloc on a second, smaller run).
2. Review throughput over HTTP: agent-method questions in review (K = 2), reviewers with API tokens driving
   `POST /api/authoring/questions/{id}/reviews/` (its answer carrying the next question; next-review to start) against
   gunicorn (gthread) on PostgreSQL at 1, 4 and 16 concurrent reviewers; 1 review in 10 is an edit (which
   asks for one more approval) and 1 in 20 a rejection. Then checks in the database: no question reviewed
   twice by one person, none over its count (K plus its edits), every settled one with exactly its count.

Creates (drops first) the PostgreSQL database sori_authoring_bench; gunicorn binds a free port on 127.0.0.1.

    .venv/bin/python benchmarks/authoring_build.py [--utterances 10000] [--questions 3000] [--seconds 15]
"""

import argparse
import http.client
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TEMPLATE = None  # --template
DB_NAME = "sori_authoring_bench"
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
HOST = "127.0.0.1"

PLACES = ["학교", "시장", "도서관", "공원", "회사", "병원", "식당", "은행", "역", "바다"]
THINGS = ["사과", "커피", "책", "우산", "가방", "사진", "편지", "선물", "영화", "숙제"]
PEOPLE = ["친구", "동생", "선생님", "가족", "손님", "이웃"]
VERBS = ["만났어요", "샀어요", "봤어요", "갔어요", "찾았어요", "기다렸어요"]


def sentence(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(2, 4)):
        parts.append(f"{rng.choice(PLACES)}에서 {rng.choice(PEOPLE)}와 {rng.choice(THINGS)}를 {rng.choice(VERBS)}")
    return " 그리고 ".join(parts) + "."


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


def setup_django(env: dict) -> None:
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def synthetic_corpus(name: str, count: int, asset, seed: int):
    from apps.authoring.models import Clip, Corpus

    rng = random.Random(seed)
    corpus = Corpus.objects.create(name=name, format="manifest", license="CC0-1.0", source="synthetic")
    clips = []
    for n in range(count):
        text = sentence(rng)
        clips.append(Clip(corpus=corpus, utterance_id=f"syn-{n:05d}", audio=asset, raw_transcript=text, transcript=text,
                          clean_transcript=text, speaker_id=f"spk{n % 300}", gender=rng.choice(["male", "female"]),
                          age_group=rng.choice(["young", "middle", "senior"]), num_speakers=rng.randint(1, 4),
                          source_file="synthetic.csv", source_line=n + 2))
    Clip.objects.bulk_create(clips, batch_size=2000)
    return corpus


def build_benchmark(asset, utterances: int) -> None:
    from apps.authoring import morphology
    from apps.authoring.services import create_question_set, generate_rule_questions

    morphology.analyse("모델을 미리 불러옵니다.")  # load Kiwi before the clock starts
    corpus = synthetic_corpus("synthetic", utterances, asset, seed=1)
    question_set = create_question_set(name="build")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    report = generate_rule_questions(question_set=question_set, corpus=corpus)
    elapsed = time.perf_counter() - t0
    rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    made = sum(r["made"] for r in report.values())
    skipped = sum(sum(r["skipped"].values()) for r in report.values())
    print(f"rule-based build: {utterances} utterances -> {made} questions ({skipped} candidates skipped) in "
          f"{elapsed:.1f} s = {made / elapsed:.0f} questions/s ({utterances / elapsed:.0f} utterances/s)")
    for cap, r in report.items():
        print(f"  {cap:<15} made {r['made']:>6}  skipped {sum(r['skipped'].values()):>6} {dict(r['skipped'])}")
    print(f"  peak resident memory {rss_peak:.0f} MiB (before the build {rss_before:.0f} MiB, kiwipiepy model included)")
    small = min(utterances, max(1000, utterances // 10))  # never more than the build itself
    corpus2 = synthetic_corpus("synthetic-traced", small, asset, seed=2)
    set2 = create_question_set(name="build-traced")
    tracemalloc.start()
    generate_rule_questions(question_set=set2, corpus=corpus2)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  Python allocation peak of a {small}-utterance build (tracemalloc): {peak / 2**20:.1f} MiB")


def seed_reviews(asset, questions: int, reviewers: int) -> tuple[int, list[str]]:
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from apps.accounts.services import user_upsert
    from apps.audio.models import AudioPlayback
    from apps.authoring.models import Question, QuestionStatus
    from apps.authoring.services import create_question_set
    from apps.queues.services import add_items

    corpus = synthetic_corpus("review", questions, asset, seed=3)
    question_set = create_question_set(name="review load", reviewers_per_question=2, corpora=[corpus])
    items = add_items(question_set.review_pool, questions)
    Question.objects.bulk_create([
        Question(question_set=question_set, capability="fact_extraction", method="agent", clip=clip,
                 text="화자는 어디에서 친구를 만났나요?", options=["학교", "시장", "도서관", "공원"], correct_index=0,
                 evidence="학교", dedup_key="fact_extraction", status=QuestionStatus.IN_REVIEW, work_item_id=item,
                 provenance={"method": "agent", "agent_calls": []})
        for clip, item in zip(corpus.clips.order_by("id"), items, strict=True)
    ], batch_size=1000)
    tokens = []
    audio_ids = set(corpus.clips.values_list("audio_id", flat=True))
    now = timezone.now()
    for i in range(reviewers):
        user, _ = user_upsert(username=f"reviewer{i}", roles=["annotator"], password="bench-password-1")
        tokens.append(Token.objects.get_or_create(user=user)[0].key)
        # A review needs the clip played to its end; this measures reviewing, so the listening is done before.
        AudioPlayback.objects.bulk_create([AudioPlayback(asset_id=a, user=user, first_ended_at=now, last_ended_at=now)
                                           for a in audio_ids], batch_size=1000)
    return question_set.pk, tokens


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start_server(env: dict, port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi:application", "--bind", f"{HOST}:{port}",
         "--worker-class", "gthread", "--workers", "2", "--threads", "16", "--log-level", "warning",
         "--keep-alive", "30"],
        cwd=ROOT, env=env, start_new_session=True,
    )
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status < 500:
                return server
        except OSError:
            time.sleep(0.3)
    stop_server(server)
    raise SystemExit(f"the server did not come up on {HOST}:{port}")


def stop_server(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)


def reviewer_loop(port, token, set_id, stop_at, times, errors):
    """One call per question: the review, whose answer carries the next one (next-review to start, and again
    after a stale_version refusal). `times` gets each question's cycle: the review, plus next-review if asked."""
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def post(path, payload=None):
        conn.request("POST", path, body=json.dumps(payload) if payload is not None else b"", headers=headers)
        response = conn.getresponse()
        return response.status, response.read()

    n, question = 0, None
    while time.time() < stop_at:
        t0 = time.perf_counter()
        if question is None:
            status, body = post(f"/api/authoring/sets/{set_id}/next-review/")
            if status == 204:
                break
            if status != 200:
                errors.append(f"next {status}: {body[:200]!r}")
                break
            question = json.loads(body)
        n += 1
        if n % 20 == 0:
            payload = {"decision": "reject", "reasons": ["ambiguous_distractor"]}
        elif n % 10 == 0:
            payload = {"decision": "edit", "version": question["version"],
                       "edit": {"text": question["text"], "options": question["options"][:3] + [f"공원 {token[:6]} {n}"],
                                "correct_index": question["correct_index"]}}
        else:
            payload = {"decision": "approve", "version": question["version"]}
        status, body = post(f"/api/authoring/questions/{question['id']}/reviews/", payload)
        if status in (200, 201):
            times.append(time.perf_counter() - t0)
            question = json.loads(body)["next"]
            if question is None:
                break
        elif status == 409 and b"stale_version" in body:
            question = None  # another reviewer's edit landed first: a correct refusal; ask for the next one
        else:
            errors.append(f"review {status}: {body[:200]!r}")
            break
    conn.close()


def pct(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_level(port, level, tokens, set_id, seconds):
    times, errors = [], []
    stop_at = time.time() + seconds
    threads = [threading.Thread(target=reviewer_loop, args=(port, tokens[i], set_id, stop_at, times, errors))
               for i in range(level)]
    started = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.time() - started
    return len(times), len(times) / elapsed, pct(times, 0.5), pct(times, 0.95), errors


def check_invariants(env: dict) -> tuple[bool, str]:
    import psycopg

    with psycopg.connect(env["DATABASE_URL"]) as conn:
        dup = conn.execute("SELECT COUNT(*) FROM (SELECT question_id, reviewer_id FROM authoring_review "
                           "GROUP BY 1, 2 HAVING COUNT(*) > 1) x").fetchone()[0]
        # A question takes K reviews plus one per edit made while no rejection was in.
        over = conn.execute("""
            SELECT COUNT(*) FROM authoring_question q JOIN queues_workitem w ON w.id = q.work_item_id
            JOIN queues_workpool p ON p.id = w.pool_id
            WHERE (SELECT COUNT(*) FROM authoring_review r WHERE r.question_id = q.id) > COALESCE(w.capacity, p.required_per_item)
               OR w.submitted_count <> (SELECT COUNT(*) FROM authoring_review r WHERE r.question_id = q.id)""").fetchone()[0]
        bad_settle = conn.execute("""
            SELECT COUNT(*) FROM authoring_question q JOIN queues_workitem w ON w.id = q.work_item_id
            JOIN queues_workpool p ON p.id = w.pool_id
            WHERE q.status IN ('accepted', 'rejected') AND q.method = 'agent'
              AND (SELECT COUNT(*) FROM authoring_review r WHERE r.question_id = q.id) <> COALESCE(w.capacity, p.required_per_item)""").fetchone()[0]
        total = conn.execute("SELECT COUNT(*) FROM authoring_review").fetchone()[0]
        settled = conn.execute("SELECT COUNT(*) FROM authoring_question WHERE method = 'agent' AND status IN ('accepted', 'rejected')").fetchone()[0]
        edits = conn.execute("SELECT COUNT(*) FROM authoring_review WHERE decision = 'edit'").fetchone()[0]
    ok = dup == 0 and over == 0 and bad_settle == 0
    return ok, (f"invariants: {total} reviews ({edits} edits), {settled} questions settled; reviewed twice by one person: {dup}; "
            f"over their count or miscounted: {over}; settled without exactly their count: {bad_settle} "
            f"-> {'OK' if ok else 'VIOLATED'}")


def main() -> int:
    global DB_NAME, TEMPLATE
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--utterances", type=int, default=10000)
    parser.add_argument("--questions", type=int, default=3000, help="questions in review for the HTTP part")
    parser.add_argument("--seconds", type=float, default=15.0, help="duration of each concurrency level")
    parser.add_argument("--levels", default="1,4,16")
    parser.add_argument("--db", default=DB_NAME, help=f"the PostgreSQL database to (re)create (default {DB_NAME})")
    parser.add_argument("--template", default=None,
                        help="create the database as a copy of this migrated one (faster; the smoke tests do)")
    args = parser.parse_args()
    DB_NAME, TEMPLATE = args.db, args.template
    levels = [int(x) for x in args.levels.split(",")]
    env = prepare_env(tempfile.mkdtemp(prefix="sori-abench-"))
    recreate_database()
    setup_django(env)
    from apps.audio.services import import_audio_file
    from tests.conftest import write_wav

    with tempfile.TemporaryDirectory() as tmp:
        asset, _ = import_audio_file(write_wav(Path(tmp) / "bench.wav", seconds=0.5), name="bench.wav")
    build_benchmark(asset, args.utterances)
    set_id, tokens = seed_reviews(asset, args.questions, max(levels))
    from django.db import connections

    connections.close_all()
    port = free_port()
    print(f"review load: {args.questions} questions in review (K = 2), gunicorn gthread 2 workers x 16 threads "
          f"on {HOST}:{port}, PostgreSQL database {DB_NAME}")
    server = start_server(env, port)
    failed = False
    try:
        print("cycle: review (its answer hands on the next question); p50/p95 per question")
        print(f"{'reviewers':>9} {'reviews':>8} {'rev/s':>7} {'p50 ms':>8} {'p95 ms':>8}")
        for level in levels:
            n, rate, p50, p95, errors = run_level(port, level, tokens, set_id, args.seconds)
            failed = failed or bool(errors)
            print(f"{level:>9} {n:>8} {rate:>7.1f} {p50:>8.1f} {p95:>8.1f}"
                  + (f"  errors: {len(errors)} e.g. {errors[0]}" if errors else ""))
    finally:
        stop_server(server)
    ok, report = check_invariants(env)
    print(report)
    return 0 if ok and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
