"""Throughput of the speech stage against the fake TTS and ASR servers (tests/fakes/speech_server.py), through
the real openai SDK over HTTP on 127.0.0.1, with an artificial latency per request standing in for the
inference servers.

For 1, 4 and 16 samples in parallel it runs a synthesis run over N samples (a fresh run seed each time, so
nothing is answered from the cache) and prints samples per second, Sori's own time per sample (the time a
sample takes minus the time its TTS and ASR requests were in flight, as the call log measures them: sentence
splitting, decoding, joining, loudness, storing the asset, the CER gate and the database writes), and the
time of the CER computation alone. Sori's time per sample is wall time, so with more samples in parallel
than cores it also holds the time a sample waits for the CPU; the CPU column is this process's CPU time per
sample (the fake servers run in another process): the work itself, its HTTP client's included, whatever
the parallelism.

    .venv/bin/python benchmarks/speech_run.py [--samples 1000] [--latency 0.05] [--parallel 1,4,16]
                                              [--database-url postgres://postgres@127.0.0.1:5432/sori_speech_bench]

Without --database-url it uses a fresh temporary SQLite database (never your DATABASE_URL).
"""

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = ("오늘 서울 날씨 회의 시작 다리 거미 행성 가장 작가 햄릿 언어 스위스 독일어 프랑스어 사과 바나나 학교 "
         "친구 가족 음악 영화 도서관 시장 바다 산 강 나무 꽃 하늘 구름 비 눈 바람 시간 사람").split()
ENDINGS = ("입니다.", "인가요?", "합니다.", "있나요?", "없습니다.")


def korean_text(rng: random.Random) -> str:
    return " ".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 7))) + " " + rng.choice(ENDINGS)
                    for _ in range(rng.randint(1, 3)))


def _prepare_database(url: str | None, workdir: Path) -> str:
    if not url:
        return f"sqlite:///{workdir / 'bench.sqlite3'}"
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds the fake servers wait per request")
    parser.add_argument("--parallel", default="1,4,16")
    parser.add_argument("--database-url", help="a PostgreSQL database to (re)create for the run")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="sori-speech-bench-"))
    os.environ["SORI_DATA_DIR"] = str(workdir)
    os.environ["DATABASE_URL"] = _prepare_database(args.database_url, workdir)
    os.environ.pop("REDIS_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ["SORI_JOB_RUNNER"] = "sync"
    os.environ["SORI_SPEECH_DISPATCH"] = "inline"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"

    import django

    django.setup()
    import logging

    logging.disable(logging.WARNING)
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    from apps.audio.services import import_audio_file
    from apps.consultations.models import Rulebook
    from apps.consultations.rulebooks import get_version, load_rulebooks
    from apps.sources.models import SourceBenchmark
    from apps.sources.services import import_benchmark
    from apps.speech import gate, services
    from apps.speech.models import ReferenceVoice, SampleStatus, SpeechCall, SynthesisAttempt
    from apps.transfer.models import NormalizedText, Translation
    from tests.conftest import write_wav
    from tests.fakes.speech_server import speech_settings

    # The fake servers run in their own process, so their tone making and pitch finding do not share this
    # process's interpreter lock with the code being measured.
    context = multiprocessing.get_context("spawn")
    urls = context.Queue()
    server = context.Process(target=_serve, args=(urls, args.latency), daemon=True)
    server.start()
    settings.SPEECH_TTS, settings.SPEECH_ASR = speech_settings(urls.get(timeout=60))

    rng = random.Random(11)
    load_rulebooks()
    hyper = get_version("ko-hypertranslation", 1)
    norm = Rulebook.objects.get(slug="ko-normalization").latest_version()
    source = workdir / "sd-qa.jsonl"
    source.write_text("\n".join(json.dumps({"prompt": f"Question {i}?", "reference": str(i)}) for i in range(args.samples)))
    import_benchmark(fmt="voicebench", subset="sd-qa", path=source)
    benchmark = SourceBenchmark.objects.get(name="voicebench")
    for sample in benchmark.samples.order_by("pk"):
        text = korean_text(rng)
        translation = Translation.objects.create(sample=sample, rulebook_version=hyper, action="direct_translation",
                                                 source_transcription=sample.transcription, transcription_ko=text)
        NormalizedText.objects.create(sample=sample, translation=translation, rulebook_version=norm, text=text, status="ok")
    for i, (name, gender) in enumerate([("f1", "female"), ("f2", "female"), ("m1", "male"), ("m2", "male")]):
        asset, _ = import_audio_file(write_wav(workdir / f"{name}.wav", freq=300 + 40 * i))
        ReferenceVoice.objects.create(name=name, gender=gender, clip=asset, transcript="참조 음성입니다.")

    sample_seconds: list[float] = []
    lock = threading.Lock()
    synthesize = services.synthesize_sample

    def timed(synthesis_id):
        started = time.perf_counter()
        try:
            return synthesize(synthesis_id)
        finally:
            with lock:
                sample_seconds.append(time.perf_counter() - started)

    services.synthesize_sample = timed  # the job looks it up on the module at each call
    # Once-per-process loads are not per-sample work: Kiwi's model and pyloudnorm's scipy import happen
    # before timing, as they do once in a long-lived worker.
    services.assembly.split_sentences("워밍업입니다")
    services.assembly._normalize_loudness(np.full(16000, 0.1), 16000, -23.0)

    print(f"{args.samples} samples, {args.latency * 1000:.0f} ms per fake request, "
          f"database {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}")
    print(f"{'parallel':>8} {'samples/s':>10} {'requests':>9} {'in flight ms/sample':>20} {'Sori ms/sample':>15} "
          f"{'Sori CPU ms/sample':>19} {'passed':>7}")
    for seed, parallel in enumerate(int(p) for p in args.parallel.split(",")):
        settings.SPEECH_WORKERS = parallel
        settings.SPEECH_TTS["concurrency"] = settings.SPEECH_ASR["concurrency"] = parallel
        sample_seconds.clear()
        started, cpu_started = time.perf_counter(), time.process_time()
        run = services.start_run(acting_user=None, benchmark=benchmark, seed=seed + 1)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        calls = SpeechCall.objects.filter(job_id=run.job_id)
        in_flight = sum(calls.values_list("latency_ms", flat=True)) / 1000
        passed = run.samples.filter(status=SampleStatus.PASSED).count()
        own = (sum(sample_seconds) - in_flight) / len(sample_seconds)
        requests = calls.filter(status="ok").count()
        print(f"{parallel:>8} {args.samples / wall:>10.1f} {requests:>9} "
              f"{in_flight / len(sample_seconds) * 1000:>20.1f} {own * 1000:>15.1f} "
              f"{cpu / len(sample_seconds) * 1000:>19.1f} {passed:>7}")

    pairs = list(SynthesisAttempt.objects.values_list("text", "transcript"))
    started = time.perf_counter()
    for text, transcript in pairs:
        gate.check(text=text, transcript=transcript, threshold=0.1)
    per = (time.perf_counter() - started) / len(pairs)
    mean_chars = statistics.mean(len(t) for t, _ in pairs)
    print(f"CER computation (gate.check: NFC, strip, jiwer CER and WER): {per * 1e6:.0f} µs per attempt "
          f"({len(pairs)} attempts, {mean_chars:.0f} characters on average)")
    server.terminate()


def _serve(urls, latency: float) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.fakes.speech_server import FakeSpeechServer

    server = FakeSpeechServer()
    server.fake.latency = latency
    urls.put(server.url)
    server.httpd.serve_forever()


if __name__ == "__main__":
    main()
