"""Speed of the normalization and hypertranslation stages.

1. Sentences per second of the deterministic normalizer (the package apps/transfer/normalizer/, kiwipiepy tokens and
   the tables of the published normalization rulebook) over N mixed Korean sentences: numbers with counters,
   currency, units, dates, acronyms, formulas, URLs, and plain sentences with nothing to read.
2. The translation stage's own overhead per 1,000 samples: a translation run (job, real anthropic SDK, HTTP
   to the fake provider on 127.0.0.1 that answers at once, validation, database writes) over synthetic
   VoiceBench samples. The provider's own latency is not in it.

    .venv/bin/python benchmarks/normalize.py [--sentences 10000] [--samples 1000]

It uses a fresh temporary SQLite database (never your DATABASE_URL) and no network beyond 127.0.0.1.
"""

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TEMPLATES = [
    "사과 {n}개와 배 {m}개를 샀습니다.", "{n}명이 {y}년 {mo}월 {d}일에 모였다.", "가격은 ${n}.{m}입니다.",
    "{n},{k:03d}원을 냈다.", "성장률은 {n}.{m}%였다.", "농도는 {n} g/mL이다.", "속도는 {n}km/h로 달렸다.",
    "{n}~{m}개를 고르세요.", "기온은 -{n}°C까지 내려갔다.", "값은 10^-{m}보다 작다.", "ROI가 {n}% 늘었다.",
    "NaOH와 H2O를 섞는다.", "www.example.com 에서 data.json 파일을 받으세요.", "ㄱ. 화성암 ㄴ. 퇴적암 ㄷ. 변성암",
    "“예”라고 답했다… 그리고 떠났다.", "오늘은 날씨가 정말 좋네요.", "가장 큰 행성은 무엇인가요?",
    "{n}층에서 {m}분 기다렸다.", "{n}살 아이가 {m}번째로 왔다.", "오후 {h}:{mi:02d}에 만나요.",
]


def sentences(n: int, rng: random.Random) -> list[str]:
    out = []
    for _ in range(n):
        t = rng.choice(TEMPLATES)
        out.append(t.format(n=rng.randint(1, 999), m=rng.randint(1, 99), k=rng.randint(0, 999), y=rng.randint(1900, 2030),
                            mo=rng.randint(1, 12), d=rng.randint(1, 28), h=rng.randint(1, 12), mi=rng.randint(0, 59)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=1000)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="sori-normalize-"))
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
    from django.core.management import call_command

    from apps.consultations.rulebooks import get_version, load_rulebooks
    from apps.jobs.models import Job
    from apps.sources.services import import_benchmark
    from apps.transfer.hypertranslation import selectors as translation_selectors
    from apps.transfer.hypertranslation.services import start_translation_run
    from apps.transfer.normalizer import normalizer_for, validate
    from tests.fakes.llm_server import FakeLLMServer

    call_command("migrate", verbosity=0)
    load_rulebooks()
    rng = random.Random(20261203)

    # 1. The deterministic normalizer.
    engine = normalizer_for(get_version("ko-normalization", 2))
    texts = sentences(args.sentences, rng)
    engine.normalize(texts[0])  # load kiwipiepy's model outside the timing
    started = time.perf_counter()
    results = [engine.normalize(t) for t in texts]
    elapsed = time.perf_counter() - started
    pending = sum(1 for r in results if r.pending)
    failed = sum(1 for r in results if validate(r.text, r.preserved))
    print(f"deterministic normalizer: {len(texts)} mixed sentences in {elapsed:.2f} s = "
          f"{len(texts) / elapsed:,.0f} sentences/s (one process, one thread)")
    print(f"  left for the agent: {pending}; failing validation: {failed}")

    # 2. The translation stage against a provider that answers at once.
    rows = [{"prompt": f"Question number {i}: what is the capital of country {i}?", "reference": f"City {i}"}
            for i in range(args.samples)]
    path = workdir / "sd-qa.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    import_benchmark(fmt="voicebench", subset="sd-qa", path=path)
    server = FakeLLMServer().start()
    os.environ.update(ANTHROPIC_API_KEY="fake", ANTHROPIC_BASE_URL=server.url, OPENAI_API_KEY="fake",
                      OPENAI_BASE_URL=f"{server.url}/v1")
    server.fake.always({"action": "direct_translation", "transcription_ko": "몇 번 나라의 수도는 어디인가요?",
                        "answer_ko": "도시", "aliases_ko": [], "rule_ids": ["ht-proper-nouns"], "kept_terms": [],
                        "reason": ""})
    started = time.monotonic()
    run = start_translation_run(benchmark="voicebench", budget_usd=1000)
    wall = time.monotonic() - started
    job = Job.objects.get(pk=run.job_id)
    assert job.status == "succeeded", job.error
    n = translation_selectors.run_translations(run).count()
    print(f"translation run: {n} samples in {wall:.1f} s = {wall * 1000 / n:.1f} s of Sori's own overhead per 1,000 "
          f"samples (job, SDK, HTTP to 127.0.0.1, validation, SQLite writes; TRANSFER_TRANSLATE_WORKERS applies)")
    server.stop()


if __name__ == "__main__":
    main()
