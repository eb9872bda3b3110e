#!/usr/bin/env python
"""How fast the three admin dashboards are against reading their rows and computing the same numbers.

(Re)creates the PostgreSQL database `sori_dashboards_bench`, migrates it and, for each size (1,000 and
10,000 by default), fills:

- listening: one test of N clips rated five times each by 60 listeners, 20 gold clips rated by everyone,
  one listener excluded;
- verification: one project of N items with three reviews each from 12 annotators;
- consultations: N source samples, a round over all of them and an analysis per sample under two rulebook
  versions (so the round shows each sample's newest analysis).

Then it times, best of --repeat runs each (interleaved, so a busy machine slows both alike):
- "selector": the function that computes everything the dashboard shows (listening and verification
  `selectors.dashboard`, consultations `selectors.round_stats`), its queries included;
- "direct": the same figures computed straight from the rows: one raw SQL read per table the figures come
  from, then pandas/numpy/scipy/krippendorff on those rows (clip MOS, median, std and t-CI per clip,
  group intervals at rating and clip level, alpha, listener QC; decision counts, kappa and alpha; the
  newest analysis per sample and its counts);
and prints both and their ratio (the figure the issue bounds at 2), and for reference the whole page as
an admin gets it ("page": Django's test client, session, view, every query of the page, the template; the
consultation round page also lists jobs, questions, drafts and events, which are not statistics).

    .venv/bin/python benchmarks/dashboards.py                  # 1,000 and 10,000 (about two minutes)
    .venv/bin/python benchmarks/dashboards.py --sizes 1000 --repeat 3

Run it from the repository root with the project's virtualenv.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
TEMPLATE = None  # --template
DB_NAME = "sori_dashboards_bench"


def recreate_database() -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB_NAME}"' + (f' TEMPLATE "{TEMPLATE}"' if TEMPLATE else ""))


def setup_django(media: str) -> None:
    os.environ.update({
        "DATABASE_URL": f"{PG}/{DB_NAME}", "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "0",
        "SECRET_KEY": "dashboards-benchmark-only-key-0123456789abcdefghijklmnopqrstuvwxyz",
        "ALLOWED_HOSTS": "testserver,127.0.0.1", "SECURE_SSL_REDIRECT": "0", "LOG_LEVEL": "WARNING",
        "SORI_JOB_RUNNER": "sync", "SORI_DATA_DIR": media, "AXES_ENABLED": "0",
        "STATIC_ROOT": str(Path(media) / "static"),
    })
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG=0 pages need the manifest


# --- filling ----------------------------------------------------------------------------------------------


def make_users(prefix: str, n: int, role: str) -> list:
    from django.contrib.auth.models import Group

    from apps.accounts.models import User

    users = User.objects.bulk_create([User(username=f"{prefix}{i:03d}", password="!") for i in range(n)])
    group, _ = Group.objects.get_or_create(name=role)
    group.user_set.add(*users)
    return users


def fill_listening(n: int, asset, rng) -> object:
    from django.utils import timezone

    from apps.listening.models import Clip, ListeningTest, Rating
    from apps.queues import services as queues
    from apps.queues.models import WorkItem

    listeners = make_users(f"lis{n}-", 60, "listener")
    pool = queues.create_pool(name=f"listening {n}", kind="listening", required_per_item=5, lease_seconds=900)
    gold_n = 20
    test = ListeningTest.objects.create(name=f"bench {n}", pool=pool, clips_expected=n + gold_n)
    items = queues.add_items(pool, n) + queues.add_items(pool, gold_n, capacity=WorkItem.UNLIMITED)
    quality = rng.uniform(1, 5, size=n + gold_n)
    clips = Clip.objects.bulk_create([
        Clip(
            test=test, work_item_id=item, clip_id=f"c{i:05d}", asset=asset, audio_name="tone.wav",
            text=f"sentence {i % 900}", speaker=f"spk{i % 120}", source_type=("real", "tts", "degraded")[i % 3],
            style=("read", "spontaneous")[i % 2], category="CFQEPS"[i % 6], system=f"sys{i % 8}",
            gold_min=4 if i >= n else None, gold_max=5 if i >= n else None,
        )
        for i, item in enumerate(items)
    ], batch_size=2000)
    now = timezone.now()
    ratings = []
    for i, clip in enumerate(clips):
        raters = listeners if clip.gold_min else [listeners[j] for j in rng.choice(len(listeners), 5, replace=False)]
        for listener in raters:
            score = int(min(5, max(1, round(quality[i] + rng.normal(0, 0.8)))))
            ratings.append(Rating(clip=clip, listener=listener, score=score, rated_at=now))
    Rating.objects.bulk_create(ratings, batch_size=5000)
    queues.exclude_worker(pool, listeners[0], by=None, reason="benchmark")
    return test


def fill_verification(n: int, asset, rng) -> object:
    import json

    from apps.queues.services import add_items
    from apps.verification.models import ItemImport, Review, VerificationItem
    from apps.verification.services import create_project

    annotators = make_users(f"ann{n}-", 12, "annotator")
    project = create_project(name=f"bench {n}")
    batch = ItemImport.objects.create(project=project, file_name="seeded", file_sha256="0" * 64, item_count=n)
    work_items = add_items(project.pool, n)
    tasks = [("Intent", "Discourse Context"), ("Emotion", "Paralinguistics")]
    items = VerificationItem.objects.bulk_create([
        VerificationItem(
            project=project, work_item_id=w, external_id=f"v{i}", position=i, audio=asset, audio_path="tone.wav",
            task=tasks[i % 2][0], domain=tasks[i % 2][1], format="single", language="en",
            question="Identify the speaker's purpose.", options=["A", "B", "C", "D"], answers=["A"],
            record=json.dumps({"id": f"v{i}"}), item_import=batch,
        )
        for i, w in enumerate(work_items)
    ], batch_size=2000)
    reviews = []
    for item in items:
        for j in rng.choice(len(annotators), 3, replace=False):
            reject = rng.random() < 0.15
            reviews.append(Review(
                item=item, annotator=annotators[j], decision="reject" if reject else "approve",
                reasons=["wrong_answer"] if reject else [], seconds_spent=float(rng.uniform(5, 60)),
            ))
    Review.objects.bulk_create(reviews, batch_size=5000)
    return project


def fill_consultations(n: int, rng) -> object:
    from apps.consultations.models import AnalysisResult, Rulebook, RulebookVersion
    from apps.consultations.services import create_round
    from apps.sources.models import SourceBenchmark, SourceSample

    bench = SourceBenchmark.objects.create(name=f"bench-{n}", format="voicebench")
    samples = SourceSample.objects.bulk_create([
        SourceSample(
            benchmark=bench, subset=("mmsu", "openbookqa", "bbh", "sd-qa")[i % 4], task_type="multiple_choice",
            source_id=f"s{i}", transcription=f"question {i} " * 8, answer="A", raw={"id": i, "text": "x" * 200},
            line_number=i + 1,
        )
        for i in range(n)
    ], batch_size=2000)
    rulebook = Rulebook.objects.create(slug=f"bench-{n}", language=f"x-{n}"[:10], kind="hypertranslation",
                                       title="bench")
    v1 = RulebookVersion.objects.create(rulebook=rulebook, number=1, source="benchmark")
    round = create_round(rulebook=rulebook, scope={})
    v2 = RulebookVersion.objects.create(rulebook=rulebook, number=2, source="benchmark")
    actions = ["direct_translation", "format_conversion", "equivalent_replacement", "deletion", "undecided",
               "needs_attention"]
    weights = [0.7, 0.12, 0.05, 0.03, 0.07, 0.03]
    results = []
    for version in (v1, v2):
        for sample in samples:
            results.append(AnalysisResult(
                sample=sample, version=version, round=round, action=str(rng.choice(actions, p=weights)),
                cited_rule_ids=[f"R{int(rng.integers(1, 40))}"], reason="",
            ))
    AnalysisResult.objects.bulk_create(results, batch_size=5000)
    return round


# --- direct computations ---------------------------------------------------------------------------------


def rows(sql: str, params) -> list[tuple]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def direct_listening(test) -> dict:
    import krippendorff
    import numpy as np
    import pandas as pd
    from scipy import stats as sps

    frame = pd.DataFrame(rows(
        "SELECT r.clip_id, r.listener_id, r.score, c.gold_min, c.gold_max FROM listening_rating r "
        "JOIN listening_clip c ON c.id = r.clip_id WHERE c.test_id = %s", [test.pk],
    ), columns=["clip", "listener", "score", "gold_min", "gold_max"])
    clips = pd.DataFrame(rows(
        "SELECT id, source_type, style, category, system, split FROM listening_clip "
        "WHERE test_id = %s AND gold_min IS NULL", [test.pk],
    ), columns=["clip", "source_type", "style", "category", "system", "split"]).set_index("clip")
    excluded = {r[0] for r in rows(
        "SELECT worker_id FROM queues_poolexclusion WHERE pool_id = %s", [test.pool_id])}
    regular_all = frame[frame["gold_min"].isna()]
    gold = frame[frame["gold_min"].notna()]
    regular = regular_all[~regular_all["listener"].isin(excluded)]

    g = regular.groupby("clip")["score"]
    table = g.agg(n="size", mos_mean="mean", mos_median="median", std="std")
    table["ci95"] = sps.t.ppf(0.975, table["n"] - 1) * table["std"] / np.sqrt(table["n"])
    completion = table["n"].reindex(clips.index, fill_value=0).clip(upper=5).value_counts()
    means = table["mos_mean"].to_numpy()
    overall = (means.mean(), sps.t.ppf(0.975, means.size - 1) * means.std(ddof=1) / np.sqrt(means.size))
    histogram = np.histogram(means, bins=[1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0001])
    groups = {}
    joined = regular.join(clips, on="clip")
    for field in ("source_type", "style", "category", "system"):
        by_rating = joined.groupby(field)["score"].agg(["mean", "std", "size"])
        by_clip = table.join(clips[field]).groupby(field)["mos_mean"].agg(["mean", "std", "size"])
        for agg in (by_rating, by_clip):
            agg["ci95"] = sps.t.ppf(0.975, agg["size"] - 1) * agg["std"] / np.sqrt(agg["size"])
        groups[field] = (by_rating, by_clip)
    matrix = regular.pivot_table(index="listener", columns="clip", values="score", aggfunc="first").to_numpy(float)
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
    # Listener QC: gold misses, variance, r with the other listeners' leave-one-out clip means.
    missed = ((gold["score"] < gold["gold_min"]) | (gold["score"] > gold["gold_max"])).groupby(gold["listener"]).sum()
    sums = regular_all.groupby("clip")["score"].agg(["sum", "count"])
    own = regular_all.join(sums, on="clip")
    own = own[own["count"] > 1].assign(others=lambda f: (f["sum"] - f["score"]) / (f["count"] - 1))
    variance = regular_all.groupby("listener")["score"].var(ddof=1)
    own = own.assign(xx=own["score"] ** 2, yy=own["others"] ** 2, xy=own["score"] * own["others"])
    m = own.groupby("listener")[["score", "others", "xx", "yy", "xy"]].agg(["sum", "size"])
    k = m[("score", "size")]
    sx, sy, sxx, syy, sxy = (m[(c, "sum")] for c in ("score", "others", "xx", "yy", "xy"))
    qc = (variance, (sxy - sx * sy / k) / np.sqrt((sxx - sx**2 / k) * (syy - sy**2 / k)))
    splits = clips["split"].value_counts()
    return {"table": table, "completion": completion, "overall": overall, "histogram": histogram, "groups": groups,
            "alpha": alpha, "missed": missed, "qc": qc, "splits": splits}


def direct_verification(project) -> dict:
    import krippendorff
    import numpy as np
    import pandas as pd

    items = pd.DataFrame(rows(
        "SELECT id, task, domain, status FROM verification_verificationitem WHERE project_id = %s", [project.pk]),
        columns=["item", "task", "domain", "status"])
    reviews = pd.DataFrame(rows(
        "SELECT r.item_id, r.annotator_id, u.username, r.decision, r.reasons, r.seconds_spent "
        "FROM verification_review r JOIN verification_verificationitem i ON i.id = r.item_id "
        "JOIN accounts_user u ON u.id = r.annotator_id WHERE i.project_id = %s", [project.pk]),
        columns=["item", "annotator", "username", "decision", "reasons", "seconds"])
    per_task = items.groupby(["task", "status"]).size().unstack(fill_value=0)
    per_domain = items.groupby(["domain", "status"]).size().unstack(fill_value=0)
    reasons = reviews["reasons"].explode().value_counts()
    reviews["approve"] = reviews["decision"] == "approve"
    counts = reviews.groupby("item")["approve"].agg(["sum", "size"])
    complete = counts[counts["size"] == 3]
    table = np.stack([complete["sum"], 3 - complete["sum"]], axis=1).astype(float)
    p_j = table.sum(axis=0) / table.sum()
    p_i = (np.square(table).sum(axis=1) - 3) / 6
    kappa = (p_i.mean() - np.square(p_j).sum()) / (1 - np.square(p_j).sum())
    matrix = reviews.pivot_table(index="annotator", columns="item", values="approve", aggfunc="first").to_numpy(float)
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    per_annotator = reviews.groupby("username").agg(reviews=("item", "size"), approval=("approve", "mean"),
                                                    median_seconds=("seconds", "median"))
    split = complete.index[complete["sum"] == 2]
    return {"per_task": per_task, "per_domain": per_domain, "reasons": reasons, "kappa": kappa, "alpha": alpha,
            "annotators": per_annotator, "split": len(split)}


def direct_consultations(round) -> dict:
    import pandas as pd

    frame = pd.DataFrame(rows(
        "SELECT DISTINCT ON (a.sample_id) a.sample_id, s.subset, a.action, a.cited_rule_ids "
        "FROM consultations_analysisresult a JOIN consultations_rulebookversion v ON v.id = a.version_id "
        "JOIN transfer_sourcesample s ON s.id = a.sample_id WHERE v.rulebook_id = %s "
        "ORDER BY a.sample_id, v.number DESC", [round.rulebook_id]),
        columns=["sample", "subset", "action", "cited"])
    per_action = frame["action"].value_counts()
    flagged = frame[frame["action"].isin(["equivalent_replacement", "deletion"])]
    by_subset = flagged.groupby(["subset", "action"]).size()
    citations = frame["cited"].explode().value_counts()
    return {"per_action": per_action, "by_subset": by_subset, "citations": citations}


# --- timing ----------------------------------------------------------------------------------------------


def best_of(dashboard, direct, repeat: int) -> tuple[float, float]:
    """The best of `repeat` runs of each, interleaved so that a busy machine slows both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, out in zip((dashboard, direct), times, strict=True):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return min(times[0]), min(times[1])


def page(client, url: str):
    def get():
        response = client.get(url)
        if response.status_code != 200:
            raise SystemExit(f"GET {url} answered {response.status_code}")
    return get


def main() -> None:
    global DB_NAME, TEMPLATE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated clip/item/sample counts")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the best is reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", default=DB_NAME, help=f"the PostgreSQL database to (re)create (default {DB_NAME})")
    parser.add_argument("--template", default=None,
                        help="create the database as a copy of this migrated one (faster; the smoke tests do)")
    args = parser.parse_args()
    DB_NAME, TEMPLATE = args.db, args.template
    sizes = [int(s) for s in args.sizes.split(",")]

    recreate_database()
    media = tempfile.mkdtemp(prefix="sori-dashboards-bench-")
    setup_django(media)
    import numpy as np
    from django.db import connection
    from django.test import Client

    from apps.accounts.services import user_upsert
    from apps.audio.services import import_audio_file
    from tests.conftest import write_wav

    rng = np.random.default_rng(args.seed)
    asset, _ = import_audio_file(write_wav(Path(media) / "tone.wav", seconds=0.5), name="tone.wav")
    admin, _ = user_upsert(username="bench-admin", roles=["admin"])
    client = Client()
    client.force_login(admin)

    print(f"{'dashboard':<14}{'size':>7}{'selector ms':>13}{'direct ms':>11}{'ratio':>7}{'page ms':>10}")
    from apps.consultations import selectors as consultation_selectors
    from apps.listening import selectors as listening_selectors
    from apps.verification import selectors as verification_selectors

    for n in sizes:
        started = time.perf_counter()
        test = fill_listening(n, asset, rng)
        project = fill_verification(n, asset, rng)
        round = fill_consultations(n, rng)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # planner statistics, as autovacuum would have them after a real import
        print(f"# filled {n:,} clips, items and samples in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        cases = [
            ("listening", partial(listening_selectors.dashboard, test), partial(direct_listening, test),
             page(client, f"/listening/manage/tests/{test.pk}/")),
            ("verification", partial(verification_selectors.dashboard, project), partial(direct_verification, project),
             page(client, f"/verification/projects/{project.pk}/")),
            ("consultations", partial(consultation_selectors.round_stats, round), partial(direct_consultations, round),
             page(client, f"/consultations/rounds/{round.pk}/")),
        ]
        for name, selector, direct, whole_page in cases:
            for fn in (selector, direct, whole_page):
                fn()  # warm: templates compiled, caches filled, as on a running server
            d, r = best_of(selector, direct, args.repeat)
            p, _ = best_of(whole_page, lambda: None, args.repeat)
            print(f"{name:<14}{n:>7}{d * 1000:>13.1f}{r * 1000:>11.1f}{d / r:>7.2f}{p * 1000:>10.1f}", flush=True)
    shutil.rmtree(media, ignore_errors=True)

if __name__ == "__main__":
    main()
