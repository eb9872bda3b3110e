"""How fast Sori scores a model's responses.

1. Rule-based scoring: the evaluation's own rule step (apps.evaluation.services.rule_score, the scorers of
   apps.evaluation.scoring) over 10,000 synthetic responses spread over the rule metrics (multiple choice, short
   answer, BBH, refusal, IFEval), English and Korean; responses per second per metric and overall.
2. The LLM judge: the evaluation job (rules, then the judge through apps.agents and the real openai SDK) over
   synthetic short-answer and open-ended items against the fake provider server on 127.0.0.1
   (tests/fakes/llm_server.py), which answers after a simulated provider latency; judged items per second at 1, 4
   and 16 items in flight (SORI_EVALUATION_JUDGE_WORKERS, with the provider's slots raised to match).

    .venv/bin/python benchmarks/evaluation.py [--responses 10000] [--judged 96] [--latency 0.05]
    .venv/bin/python benchmarks/evaluation.py --smoke      # a tiny size, for CI

It uses a fresh temporary SQLite database (never your DATABASE_URL) and no network beyond 127.0.0.1."""

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = ("river light history energy market planet letter garden science animal music mountain city law "
         "reason number voice system answer paper island water company metal country century theory").split()
KO_WORDS = "강 빛 역사 시장 행성 편지 정원 과학 동물 음악 산 도시 법 이유 숫자 목소리 대답 종이 섬 물 회사".split()


def sentence(rng: random.Random, words: int, korean: bool = False) -> str:
    return " ".join(rng.choice(KO_WORDS if korean else WORDS) for _ in range(words))


def rule_cases(n: int, rng: random.Random) -> list[tuple[str, str, dict, str]]:
    """(metric, language, item fields, response) for n synthetic responses, a fifth per metric."""
    cases = []
    for i in range(n):
        korean = i % 2 == 1
        language = "ko" if korean else "en"
        metric = ("mcq", "qa", "bbh", "refusal", "ifeval")[i % 5]
        if metric == "mcq":
            labels = "ㄱㄴㄷㄹ" if korean else "ABCD"
            answer = rng.choice(labels)
            response = f"정답은 {rng.choice(labels)}입니다. {sentence(rng, 12, True)}" if korean else \
                f"The answer is {rng.choice(labels)}. {sentence(rng, 12)}"
            fields = {"answer": answer, "aliases": []}
        elif metric == "qa":
            answer = sentence(rng, 2, korean)
            fields = {"answer": answer, "aliases": [sentence(rng, 2, korean)]}
            response = f"{sentence(rng, 10, korean)} {answer if rng.random() < 0.5 else ''}"
        elif metric == "bbh":
            # Real BBH items name their task (the scorer reads it from `task` or the id): one of the four.
            task, labels = rng.choice([("web_of_lies", ["Yes", "No"]), ("navigate", ["Yes", "No"]),
                                       ("sports_understanding", ["yes", "no"]), ("hyperbaton", ["(A)", "(B)"])])
            fields = {"answer": rng.choice(labels), "aliases": [], "extra": {"task": task}}
            response = f"{sentence(rng, 20, korean)} So the answer is {rng.choice(labels)}."
        elif metric == "refusal":
            fields = {"answer": "", "aliases": []}
            refusal = "죄송하지만 도와드릴 수 없습니다." if korean else "I'm sorry, but I cannot help with that."
            response = refusal if rng.random() < 0.5 else sentence(rng, 30, korean)
        else:
            fields = {"answer": "", "aliases": [], "extra": {
                "instruction_id_list": ["length_constraints:number_words", "detectable_format:title"],
                "kwargs": [{"relation": "at least", "num_words": 20}, {}]}}
            response = f"<<{sentence(rng, 2, korean)}>> {sentence(rng, rng.randint(5, 40), korean)}"
        cases.append((metric, language, fields, response))
    return cases


def bench_rules(n: int) -> None:
    from apps.evaluation.models import EvalItem, EvaluationRun
    from apps.evaluation.services import rule_score

    rng = random.Random(20260102)
    runs = {lang: EvaluationRun(language=lang) for lang in ("en", "ko")}
    items = []
    for metric, language, fields, response in rule_cases(n, rng):
        items.append(EvalItem(run=runs[language], metric=metric, question="q", answer=fields["answer"],
                              aliases=fields["aliases"], extra=fields.get("extra", {}), response=response))
    spent, counts, failed = defaultdict(float), defaultdict(int), {}
    for item in items:
        started = time.perf_counter()
        try:
            rule_score(item)
        except Exception as exc:  # a scorer that refuses this synthetic input is named, not hidden
            failed.setdefault(item.metric, f"{type(exc).__name__}: {exc}")
            continue
        spent[item.metric] += time.perf_counter() - started
        counts[item.metric] += 1
    total_n, total_s = sum(counts.values()), sum(spent.values())
    print(f"Rule-based scoring over {n} synthetic responses (English and Korean), apps.evaluation.services.rule_score")
    print(f"{'metric':<10}{'responses':>10}{'seconds':>10}{'per second':>14}")
    for metric in sorted(counts):
        print(f"{metric:<10}{counts[metric]:>10}{spent[metric]:>10.3f}{counts[metric] / spent[metric]:>14.0f}")
    print(f"{'all':<10}{total_n:>10}{total_s:>10.3f}{(total_n / total_s if total_s else 0):>14.0f}")
    for metric, reason in failed.items():
        print(f"  {metric}: not scored ({reason})")
    if failed:
        raise SystemExit("some rule metrics could not score the synthetic responses (see above)")


def bench_judge(n: int, latency: float, levels: list[int]) -> None:
    from django.conf import settings
    from django.test.utils import override_settings

    from apps.evaluation.models import EvalItem
    from apps.evaluation.services import create_model, create_run, import_responses, start_evaluation
    from apps.jobs.models import Job
    from apps.transfer.services import import_benchmark
    from tests.fakes.llm_server import FakeLLMServer

    workdir = Path(os.environ["SORI_DATA_DIR"])
    rng = random.Random(20260103)
    half = n // 2
    rows = {"sd-qa": [{"prompt": sentence(rng, 10) + "?", "reference": sentence(rng, 2)} for _ in range(half)],
            "commoneval": [{"prompt": sentence(rng, 12) + "?"} for _ in range(n - half)]}
    for subset, data in rows.items():
        path = workdir / f"{subset}.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in data))
        import_benchmark(fmt="voicebench", subset=subset, path=path, benchmark="judge-bench")
    from apps.transfer.models import SourceBenchmark

    benchmark = SourceBenchmark.objects.get(name="judge-bench")
    server = FakeLLMServer().start()
    os.environ.update(OPENAI_API_KEY="fake", OPENAI_BASE_URL=f"{server.url}/v1")
    server.fake.reply_when(lambda b: "scale of 1 to 5" in str(b), {"score": 4})
    server.fake.always({"answer": "Yes"})
    if latency:
        server.fake.slow(latency, times=3 * n * len(levels) + 100)  # every request waits the simulated latency
    print()
    print(f"LLM judge: the evaluation job over {n} items ({half} short answer, {n - half} open-ended; three judge calls "
          f"each) against the fake server, {latency * 1000:.0f} ms simulated latency a call, real openai SDK")
    print(f"{'in flight':>9}{'items':>7}{'calls':>7}{'seconds':>9}{'items/s':>9}{'calls/s':>9}")
    roles = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}
    for level in levels:
        model = create_model(name=f"bench-{level}", acting_user=None)
        run = create_run(model=model, source_benchmark=benchmark, acting_user=None)
        # Distinct responses per level, so the judge's cache (keyed by input) answers none of them.
        data = "\n".join(json.dumps({"id": i, "response": f"Answer {level}-{i}: {sentence(rng, 8)}"})
                         for i in run.items.values_list("item_id", flat=True))
        import_responses(run=run, source=data.encode(), name="responses.jsonl")
        before = len(server.fake.requests)
        with override_settings(EVALUATION_JUDGE_WORKERS=level, AGENTS_DEFAULT_ROLES=roles,
                               AGENTS_CONCURRENCY={**settings.AGENTS_CONCURRENCY, "openai": max(level, 1)}):
            started = time.monotonic()
            job = start_evaluation(run=run, budget_usd=1e9)
            elapsed = time.monotonic() - started
        job = Job.objects.get(pk=job.pk)
        if job.status != "succeeded" or job.result.get("judge_failed"):
            raise SystemExit(f"the evaluation job at {level} in flight did not succeed: {job.status} {job.error} {job.result}")
        judged = EvalItem.objects.filter(run=run, scores__method="judge").count()
        calls = len(server.fake.requests) - before
        print(f"{level:>9}{judged:>7}{calls:>7}{elapsed:>9.2f}{judged / elapsed:>9.1f}{calls / elapsed:>9.1f}")
    server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--responses", type=int, default=10000, help="rule-scored responses")
    parser.add_argument("--judged", type=int, default=96, help="judged items per level")
    parser.add_argument("--latency", type=float, default=0.05, help="simulated seconds per judge call")
    parser.add_argument("--smoke", action="store_true", help="a tiny size (200 responses, 8 judged items, no latency)")
    args = parser.parse_args()
    if args.smoke:
        args.responses, args.judged, args.latency = 200, 8, 0.0

    workdir = Path(tempfile.mkdtemp(prefix="sori-evaluation-bench-"))
    os.environ["SORI_DATA_DIR"] = str(workdir)
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY",
                 "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        os.environ.pop(name, None)
    os.environ["SORI_JOB_RUNNER"] = "sync"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"

    import django

    django.setup()
    import logging

    logging.disable(logging.WARNING)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    bench_rules(args.responses)
    bench_judge(args.judged, args.latency, [1, 4, 16])


if __name__ == "__main__":
    main()
