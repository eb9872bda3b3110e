"""What the ground-truth correction stage costs, measured from Sori's own call log.

Runs the stage (reviewer + meta-reviewer, the real anthropic and openai SDKs) over N synthetic English
source samples against the fake provider server on 127.0.0.1 (tests/fakes/llm_server.py), which bills tokens
the way a provider would (about 4 characters a token for the prompt it receives and the answer it sends).
Then it reads the AgentCall log and prints cost and time per 1,000 samples for the default models, priced by
settings.AGENTS_PRICES, and a projection for other models of the price table.

    .venv/bin/python benchmarks/agents_cost.py [--samples 1000] [--flag-rate 0.05] [--assumed-latency 3]

It uses a fresh temporary SQLite database (never your DATABASE_URL) and no network beyond 127.0.0.1.
"""

import argparse
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = ("river light history energy market planet letter garden science animal music mountain city law "
         "reason number voice system answer paper island water company metal country century theory").split()


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize()


def synthetic_subsets(n: int, rng: random.Random) -> dict[str, list[dict]]:
    """VoiceBench-shaped rows: short-answer sd-qa, multiple-choice mmsu (options read out in the prompt, so
    long), and BBH (binary and multiple-choice), in the proportions of the paper's deterministic subsets."""
    sizes = {"sd-qa": int(n * 0.4), "mmsu": int(n * 0.3)}
    sizes["bbh"] = n - sum(sizes.values())
    rows: dict[str, list[dict]] = {name: [] for name in sizes}
    for _ in range(sizes["sd-qa"]):
        rows["sd-qa"].append({"prompt": sentence(rng, rng.randint(8, 16)) + "?", "reference": sentence(rng, rng.randint(1, 3))})
    for i in range(sizes["mmsu"]):
        options = " ".join(f"{label}. {sentence(rng, rng.randint(3, 9))}." for label in "ABCD")
        rows["mmsu"].append({"id": f"mmsu_{i}", "prompt": f"{sentence(rng, rng.randint(20, 45))}? {options}",
                             "reference": rng.choice("ABCD")})
    for i in range(sizes["bbh"]):
        if i % 2:
            rows["bbh"].append({"id": f"bbh_{i}", "prompt": sentence(rng, rng.randint(40, 90)) + ". Is the argument valid?",
                                "reference": rng.choice(["valid", "invalid"])})
        else:
            opts = " ".join(f"({c}) {sentence(rng, 4)}" for c in "ABCDE")
            rows["bbh"].append({"id": f"bbh_{i}", "prompt": sentence(rng, rng.randint(30, 70)) + f". Options: {opts}",
                                "reference": f"({rng.choice('ABCDE')})"})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--flag-rate", type=float, default=0.05, help="share of samples the fake reviewer flags (paper: 5.1%%)")
    parser.add_argument("--confirm-rate", type=float, default=0.8, help="share of flags the fake meta-reviewer confirms")
    parser.add_argument("--assumed-latency", type=float, default=3.0,
                        help="seconds per real provider call, for the wall-time projection only")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="sori-agents-cost-"))
    os.environ["SORI_DATA_DIR"] = str(workdir)
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ.pop("REDIS_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ["SORI_JOB_RUNNER"] = "sync"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        os.environ.pop(name, None)

    import django

    django.setup()
    import logging

    logging.disable(logging.WARNING)
    from django.conf import settings
    from django.core.management import call_command
    from django.db.models import Avg, Count, Sum

    from apps.agents.models import AgentCall, CallStatus
    from apps.agents.services import agent_config, cost_of
    from apps.jobs.models import Job
    from apps.sources.services import import_benchmark
    from apps.transfer.ground_truth import selectors as ground_truth_selectors
    from apps.transfer.ground_truth.services import start_ground_truth_review
    from apps.transfer.models import GroundTruthReview
    from tests.fakes.llm_server import FakeLLMServer

    call_command("migrate", verbosity=0)
    rng = random.Random(20260101)
    for subset, rows in synthetic_subsets(args.samples, rng).items():
        path = workdir / f"{subset}.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in rows))
        import_benchmark(fmt="voicebench", subset=subset, path=path)

    server = FakeLLMServer().start()
    os.environ.update(ANTHROPIC_API_KEY="fake", ANTHROPIC_BASE_URL=server.url, OPENAI_API_KEY="fake",
                      OPENAI_BASE_URL=f"{server.url}/v1")
    reviewer_model, meta_model = agent_config("reviewer")[1], agent_config("meta_reviewer")[1]

    def bucket(body) -> float:
        text = body["messages"][-1]["content"] if body.get("messages") else ""  # the sample, not the system prompt
        return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF

    def reviewer(body):
        words = rng.randint(20, 45)  # a real rationale is a sentence or two
        if bucket(body) < args.flag_rate:
            return {"verdict": "error", "rationale": sentence(rng, words), "correction_kind": "new_answer",
                    "new_answer": sentence(rng, 2)}
        return {"verdict": "correct", "rationale": sentence(rng, words)}

    def meta(body):
        verdict = "confirm" if bucket(body) < args.confirm_rate else "reject"
        return {"verdict": verdict, "rationale": sentence(rng, rng.randint(25, 50))}

    server.fake.reply_when(lambda b: b.get("model") == reviewer_model, reviewer)
    server.fake.reply_when(lambda b: b.get("model") == meta_model, meta)

    started = time.monotonic()
    run = start_ground_truth_review(benchmark="voicebench", budget_usd=1000)
    elapsed = time.monotonic() - started
    job = Job.objects.get(pk=run.job_id)
    assert job.status == "succeeded", job.error
    n = GroundTruthReview.objects.count()
    scale = 1000 / n

    print(f"Ground-truth stage over {n} synthetic samples (fake provider on 127.0.0.1, real SDKs)")
    print(f"default models: reviewer {':'.join(agent_config('reviewer'))}, meta-reviewer {':'.join(agent_config('meta_reviewer'))}")
    print(f"job #{job.pk}: {job.status}, {job.done}/{job.total}; wall time {elapsed:.1f} s "
          f"({elapsed * scale:.1f} s per 1,000 samples of Sori's own overhead: SDK, HTTP to localhost, database)")
    print()
    print("From the call log (AgentCall rows of this job), per 1,000 samples:")
    print(f"{'role':<14}{'model':<30}{'calls':>8}{'tokens in':>12}{'tokens out':>12}{'cost USD':>11}{'mean ms':>9}")
    rows = (AgentCall.objects.filter(job=job).values("role", "provider", "model")
            .annotate(calls=Count("id"), tin=Sum("input_tokens"), tout=Sum("output_tokens"), cost=Sum("cost_usd"),
                      ms=Avg("latency_ms")).order_by("role"))
    total_cost, total_calls, per_call = 0.0, 0, {}
    for r in rows:
        cost = float(r["cost"]) * scale
        total_cost += cost
        total_calls += r["calls"]
        per_call[r["role"]] = (r["tin"] / r["calls"], r["tout"] / r["calls"], r["calls"] * scale)
        print(f"{r['role']:<14}{r['provider'] + ':' + r['model']:<30}{r['calls'] * scale:>8.0f}{r['tin'] * scale:>12.0f}"
              f"{r['tout'] * scale:>12.0f}{cost:>11.4f}{r['ms']:>9.1f}")
    print(f"{'total':<44}{total_calls * scale:>8.0f}{'':>24}{total_cost:>11.4f}")
    report = ground_truth_selectors.correction_report(run.benchmark)[-1]
    print(f"outcome: {report['errors_found']} flagged, {report['confirmed']} confirmed, {report['rejected']} rejected "
          f"(scripted flag rate {args.flag_rate:.0%}, confirm rate {args.confirm_rate:.0%})")

    # Reproducibility: forget the reviews and run again; every answer comes from the cache.
    before = len(server.fake.requests)
    GroundTruthReview.objects.all().delete()
    started = time.monotonic()
    again = start_ground_truth_review(benchmark="voicebench")
    rerun = time.monotonic() - started
    hits = AgentCall.objects.filter(job_id=again.job_id, status=CallStatus.CACHED).count()
    spent = AgentCall.objects.filter(job_id=again.job_id).total_cost()
    print(f"re-run after deleting the reviews: {hits} cache hits, {len(server.fake.requests) - before} HTTP requests, "
          f"${spent:.4f}, {rerun:.1f} s")

    print()
    print("PROJECTION (derived from the price table in settings.AGENTS_PRICES and the mean tokens per call above,")
    print("not measured against a real provider): cost per 1,000 samples if a model played each role")
    print(f"{'model':<32}{'as reviewer':>14}{'as meta-reviewer':>18}")
    for key in sorted(settings.AGENTS_PRICES):
        provider, model = key.split(":", 1)
        cells = []
        for role in ("reviewer", "meta_reviewer"):
            tin, tout, calls = per_call.get(role, (0, 0, 0))
            cost, _ = cost_of(provider, model, round(tin), round(tout))
            cells.append(float(cost) * calls)
        print(f"{key:<32}{cells[0]:>14.4f}{cells[1]:>18.4f}")
    calls_per_1000 = total_calls * scale
    parallel = min(settings.TRANSFER_REVIEW_WORKERS, *settings.AGENTS_CONCURRENCY.values())
    print(f"wall time per 1,000 samples at an assumed {args.assumed_latency:g} s per provider call: "
          f"{calls_per_1000 * args.assumed_latency / 60:.0f} min one at a time, "
          f"{calls_per_1000 * args.assumed_latency / 60 / parallel:.0f} min with {parallel} in parallel "
          f"(TRANSFER_REVIEW_WORKERS={settings.TRANSFER_REVIEW_WORKERS}, AGENTS_CONCURRENCY={settings.AGENTS_CONCURRENCY}) "
          f"({calls_per_1000:.0f} calls)")
    server.stop()


if __name__ == "__main__":
    main()
