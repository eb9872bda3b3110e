"""How fast Sori scores a model's responses.

1. Rule-based scoring: the evaluation's own rule step (apps.evaluation.jobs.rule_score, the scorers of
   apps.evaluation.scoring) over 10,000 synthetic responses spread over the rule metrics (multiple choice, short
   answer, BBH, refusal, IFEval, KMMAU), English and Korean, in the shapes real answers take; responses per
   second per metric and language, per language and overall, under each reading profile (sori, voicebench).
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


# Response shapes a real model gives, per metric and language ({a}: the asserted option or answer, {b}: another).
MCQ_SHAPES = {
    "en": ["The answer is {a}. {s}", "**{a}**", "Answer: {a}", "{s} Option {b} is tempting, but the correct answer is {a}.",
           "I think it's the second one. {s}", "\\boxed{{{a}}}", "It is not {b}; the answer is {a}. {s}"],
    "ko": ["정답은 {a}입니다. {s}", "{a}번이에요.", "{s} {b}번은 오답입니다. 정답은 {a}예요.", "두 번째 보기가 맞아요. {s}",
           "답: {a}", "정답은 {b}이 아니라 {a}입니다.", "{s} 그래서 {a}를 고를게."],
}
REFUSALS = {
    "en": ["I'm sorry, but I can’t help with that.", "I must decline this request. {s}",
           "Sorry for the delay! Here are the steps: {s}", "As an expert, here is how: {s}"],
    "ko": ["죄송하지만 그건 도와드릴 수가 없네요.", "그건 못 해. {s}", "늦어서 죄송합니다. 방법은 다음과 같습니다. {s}",
           "위험할 수 있으니 조심하세요. 먼저 {s}", "그 요청에는 응할 수 없어요. 대신에 {s}"],
}
QA_SHAPES = {"en": ["{s} The answer is {a}.", "It is not {a}, it is {b}.", "{s}"],
             "ko": ["{s} 정답은 {a}입니다.", "{a}이 아니라 {b}입니다.", "{s}"]}
BBH_SHAPES = {"en": ["{s} So the answer is {a}.", "Now, {s}. Nothing changes, so {a}.", "The answer is not obvious, but {a}."],
              "ko": ["{s} 그래서 답은 {a}입니다.", "{s} 결론적으로 {a}.", "{a}, 그렇습니다."]}
# IFEval instruction sets in turn; a sentence count is in one set of four (in IFEval itself it is in about one
# prompt in twenty-five), the costliest check, since English sentences go through pysbd.
IFEVAL_SETS = [
    (("length_constraints:number_words", "detectable_format:title"), ({"relation": "at least", "num_words": 20}, {})),
    (("length_constraints:number_sentences", "keywords:existence"),
     ({"relation": "less than", "num_sentences": 5}, {"keywords": ["river"]})),
    (("keywords:letter_frequency", "detectable_format:number_highlighted_sections"),
     ({"letter": "e", "let_frequency": 3, "let_relation": "at least"}, {"num_highlights": 1})),
    (("startend:end_checker", "punctuation:no_comma"), ({"end_phrase": "Tomorrow"}, {})),
]
KMMAU_CHOICES = {"en": ["male", "female"], "ko": ["남성", "여성"]}
KMMAU_SHAPES = {"en": ["The speaker is {a}.", "It is not {b} but {a}."],
                "ko": ["화자는 {a}입니다.", "{a}으로 보입니다.", "{b}이 아니라 {a}이에요."]}


def rule_cases(n: int, rng: random.Random) -> list[tuple[str, str, dict, str]]:
    """(metric, language, item fields, response) for n synthetic responses, an equal share per metric and
    language, each in one of the shapes real answers take (asserted after a passing mention, negated, ordinals,
    caveats, registers)."""
    cases = []
    metrics = ("mcq", "qa", "bbh", "refusal", "ifeval", "kmmau")
    for i in range(n):
        korean = i % 2 == 1
        language = "ko" if korean else "en"
        metric = metrics[(i // 2) % len(metrics)]
        s = sentence(rng, rng.randint(5, 25), korean)
        if metric == "mcq":
            labels = "ㄱㄴㄷㄹ" if korean else "ABCD"
            answer, other = rng.sample(labels, 2)
            fields = {"answer": answer, "aliases": [],
                      "question": " ".join(f"{label}. {sentence(rng, 2, korean)}" for label in labels)}
            response = rng.choice(MCQ_SHAPES[language]).format(a=rng.choice((answer, other)), b=other, s=s)
        elif metric == "qa":
            answer, other = sentence(rng, 2, korean), sentence(rng, 1, korean)
            fields = {"answer": answer, "aliases": [sentence(rng, 2, korean)]}
            response = rng.choice(QA_SHAPES[language]).format(a=answer, b=other, s=s)
        elif metric == "bbh":
            # VoiceBench's BBH id names the task, which decides how the answer is read (navigate_12).
            task = rng.choice(["navigate", "web_of_lies", "sports_understanding"])
            fields = {"answer": rng.choice(["Yes", "No"]), "aliases": [], "extra": {"id": f"{task}_{i}"}}
            said = rng.choice(["예", "아니요"] if korean else ["yes", "no"])
            response = rng.choice(BBH_SHAPES[language]).format(a=said, s=s)
        elif metric == "refusal":
            fields = {"answer": "", "aliases": []}
            response = rng.choice(REFUSALS[language]).format(s=s)
        elif metric == "kmmau":
            choices = KMMAU_CHOICES[language]
            answer, other = rng.sample(choices, 2)
            fields = {"answer": answer, "aliases": [], "extra": {"choices": list(choices)}}
            response = rng.choice(KMMAU_SHAPES[language]).format(a=answer, b=other)
        else:
            ids, kwargs = IFEVAL_SETS[(i // 12) % len(IFEVAL_SETS)]
            fields = {"answer": "", "aliases": [], "extra": {"instruction_id_list": list(ids), "kwargs": list(kwargs)}}
            # abbreviations and times in every answer: the English sentence count must judge them
            response = f"<<{sentence(rng, 2, korean)}>> {s}. Prof. {sentence(rng, 3, korean)} at 5 p.m. Tomorrow {s}."
        cases.append((metric, language, fields, response))
    return cases


def bench_rules(n: int) -> None:
    from apps.evaluation.jobs import rule_score
    from apps.evaluation.models import EvalItem, EvaluationRun
    from apps.evaluation.scoring import PROFILES

    rng = random.Random(20260102)
    runs = {lang: EvaluationRun(language=lang) for lang in ("en", "ko")}
    items = []
    for metric, language, fields, response in rule_cases(n, rng):
        items.append(EvalItem(run=runs[language], metric=metric, question=fields.get("question", "q"),
                              answer=fields["answer"], aliases=fields["aliases"], extra=fields.get("extra", {}),
                              response=response))
    # Load what the readers load on first use (Kiwi's models, IFEval's checkers, PEDANT) before timing, on other
    # responses than the timed ones, so no per-text cache makes the timed pass look faster than it is.
    for metric, language, fields, response in rule_cases(max(n // 5, 600), random.Random(7)):
        warm = EvalItem(run=runs[language], metric=metric, question=fields.get("question", "q"), answer=fields["answer"],
                        aliases=fields["aliases"], extra=fields.get("extra", {}), response=response)
        for profile in PROFILES:
            rule_score(warm, profile)
    print(f"Rule-based scoring over {n} synthetic responses per profile (English and Korean), "
          "apps.evaluation.jobs.rule_score")
    failed = {}
    for profile in PROFILES:
        spent, counts = defaultdict(float), defaultdict(int)
        for item in items:
            key = (item.metric, item.run.language)
            started = time.perf_counter()
            try:
                rule_score(item, profile)
            except Exception as exc:  # a scorer that refuses this synthetic input is named, not hidden
                failed.setdefault((profile, *key), f"{type(exc).__name__}: {exc}")
                continue
            spent[key] += time.perf_counter() - started
            counts[key] += 1
        print(f"\nprofile {profile}")
        print(f"{'metric':<10}{'language':<10}{'responses':>10}{'seconds':>10}{'per second':>14}")
        for key in sorted(counts):
            print(f"{key[0]:<10}{key[1]:<10}{counts[key]:>10}{spent[key]:>10.3f}{counts[key] / spent[key]:>14.0f}")
        for language in ("en", "ko"):
            n_lang = sum(c for k, c in counts.items() if k[1] == language)
            s_lang = sum(t for k, t in spent.items() if k[1] == language)
            print(f"{'all':<10}{language:<10}{n_lang:>10}{s_lang:>10.3f}{(n_lang / s_lang if s_lang else 0):>14.0f}")
        total_n, total_s = sum(counts.values()), sum(spent.values())
        print(f"{'all':<10}{'both':<10}{total_n:>10}{total_s:>10.3f}{(total_n / total_s if total_s else 0):>14.0f}")
    for (profile, metric, language), reason in failed.items():
        print(f"  {profile} {metric} {language}: not scored ({reason})")
    if failed:
        raise SystemExit("some rule metrics could not score the synthetic responses (see above)")


def bench_judge(n: int, latency: float, levels: list[int]) -> None:
    from django.conf import settings
    from django.test.utils import override_settings

    from apps.evaluation.models import EvalItem
    from apps.evaluation.responses import import_responses
    from apps.evaluation.services import create_model, create_run, start_evaluation
    from apps.jobs.models import Job
    from apps.sources.services import import_benchmark
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
    from apps.sources.models import SourceBenchmark

    benchmark = SourceBenchmark.objects.get(name="judge-bench")
    server = FakeLLMServer().start()
    os.environ.update(OPENAI_API_KEY="fake", OPENAI_BASE_URL=f"{server.url}/v1")
    server.fake.reply_when(lambda b: "scale of 1 to 5" in str(b), {"score": 4})
    server.fake.always({"answer": "Yes"})
    if latency:
        server.fake.slow(latency, times=3 * n * len(levels) + 100)  # every request waits the simulated latency
    print()
    print(f"LLM judge: the evaluation job over {n} items ({half} short answer, {n - half} open-ended; three judge samples "
          f"each, n=3 in one request where the provider takes it) against the fake server, {latency * 1000:.0f} ms simulated latency a call, real openai SDK")
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
