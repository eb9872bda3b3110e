"""How long building a release takes, how much memory it needs and how big the archive is.

Builds (1) a MOS release of a listening test with 5,000 clips x 5 ratings (29 listeners, as in KOMOS), each
clip a small WAV file, and (2) a spoken-QA release of a benchmark with 10,000 samples, each translated,
normalized and synthesized (one accepted attempt with its own small WAV file, 0.1 s at 16 kHz), and prints
seconds, peak memory (the process's peak RSS, and how far over its RSS before the build) and archive size for
each.

    .venv/bin/python benchmarks/release_build.py [--clips 5000] [--samples 10000]

The rows are written straight into a fresh temporary SQLite database (never your DATABASE_URL): importing
is measured by the importers' own benchmarks; this measures the release build (job, tables, audio copy, card,
checksums, zip).
"""

import argparse
import io
import math
import os
import resource
import struct
import sys
import tempfile
import time
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def tiny_wav(n: int, seconds: float = 0.1, rate: int = 16000) -> bytes:
    """A short distinct tone (different n, different bytes)."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        freq = 200 + (n % 2000)
        wav.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * freq * i / rate)))
                                 for i in range(int(seconds * rate))) + struct.pack("<I", n))
    return buffer.getvalue()


def make_assets(count: int, offset: int = 0):
    import hashlib

    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from apps.audio.models import AudioAsset

    assets = []
    for n in range(offset, offset + count):
        data = tiny_wav(n)
        digest = hashlib.sha256(data).hexdigest()
        name = default_storage.save(f"audio/{digest[:2]}/{digest}.wav", ContentFile(data))
        assets.append(AudioAsset(file=name, sha256=digest, original_name=f"clip{n:05d}.wav", format="wav",
                                 duration_seconds=0.1, sample_rate=16000, channels=1, size_bytes=len(data)))
    return AudioAsset.objects.bulk_create(assets, batch_size=2000)


def mos_test(clips: int):
    import random
    from datetime import UTC, datetime, timedelta

    from apps.accounts.models import User
    from apps.listening.models import Clip, ListeningTest, Rating
    from apps.queues.services import add_items, create_pool

    rng = random.Random(7)
    # No passwords: hashing 29 of them would dominate the setup, and nobody logs in here.
    listeners = User.objects.bulk_create([User(username=f"bench_listener{i}", password="!") for i in range(29)])
    pool = create_pool(name="bench", kind="listening", required_per_item=5)
    test = ListeningTest.objects.create(name="bench", pool=pool, clips_expected=clips)
    items, assets = add_items(pool, clips), make_assets(clips)
    splits = ["train"] * 81 + ["validation"] * 9 + ["test"] * 10
    rows = Clip.objects.bulk_create([
        Clip(test=test, work_item_id=item, clip_id=f"clip{n:05d}", asset=asset, audio_name=f"clip{n:05d}.wav",
             text=f"문장 {n}", speaker=f"spk{n % 40}", source_type=("real", "tts", "degraded")[n % 3],
             style=("read", "spontaneous")[n % 2], category="CFQEPS"[n % 6], system=f"sys{n % 5}",
             split=splits[n % 100], speaker_disjoint=n % 100 == 99, text_disjoint=n % 100 == 98)
        for n, (item, asset) in enumerate(zip(items, assets, strict=True))], batch_size=2000)
    start = datetime(2026, 1, 5, tzinfo=UTC)
    Rating.objects.bulk_create([
        Rating(clip=clip, listener=listener, score=rng.randint(1, 5), rated_at=start + timedelta(seconds=5 * n + k))
        for n, clip in enumerate(rows) for k, listener in enumerate(rng.sample(listeners, 5))], batch_size=5000)
    return test


def spoken_benchmark(samples: int, audio_offset: int):
    """A VoiceBench-like benchmark whose every sample is translated, normalized and has accepted audio (rows
    made directly: the transfer and speech stages have their own benchmarks)."""
    import hashlib

    from apps.consultations.models import Rulebook, RulebookVersion
    from apps.sources.models import SourceBenchmark, SourceSample
    from apps.speech.models import ReferenceVoice, SampleSynthesis, SynthesisAttempt, SynthesisRun
    from apps.transfer.models import NormalizedText, Translation

    bench = SourceBenchmark.objects.create(name="voicebench", format="voicebench")
    subsets = ["sd-qa", "mmsu", "bbh", "commoneval", "ifeval", "advbench", "openbookqa", "alpacaeval", "wildvoice"]
    rows = SourceSample.objects.bulk_create([
        SourceSample(benchmark=bench, subset=subsets[n % 9], task_type="short_answer", source_id=f"s{n:05d}",
                     transcription=f"Question number {n}?", answer=f"answer {n}", aliases=[f"alt {n}"],
                     raw={}, line_number=n + 1) for n in range(samples)], batch_size=5000)
    hyper, norm = (RulebookVersion.objects.create(rulebook=Rulebook.objects.create(slug=slug, language="ko", kind=kind, title=slug),
                                                  number=2, source="bench")
                   for slug, kind in (("ko-hypertranslation", "hypertranslation"), ("ko-normalization", "normalization")))
    translations = Translation.objects.bulk_create([
        Translation(sample=s, rulebook_version=hyper, action="direct_translation", source_transcription=s.transcription,
                    source_answer=s.answer, transcription_ko=f"질문 번호 {n}?", answer_ko=f"답 {n}", aliases_ko=[f"다른 답 {n}"])
        for n, s in enumerate(rows)], batch_size=5000)
    normalized = NormalizedText.objects.bulk_create([
        NormalizedText(sample=s, translation=t, rulebook_version=norm, source_text=t.transcription_ko,
                       text=f"질문 번호 {n}번?", status="ok") for n, (s, t) in enumerate(zip(rows, translations, strict=True))],
        batch_size=5000)
    voice_clip, *assets = make_assets(samples + 1, offset=audio_offset)
    voice = ReferenceVoice.objects.create(name="bench voice", gender="female", clip=voice_clip, transcript="목소리입니다.")
    run = SynthesisRun.objects.create(benchmark=bench, tts_backend="openai", tts_model="gpt-4o-mini-tts",
                                      asr_backend="openai", asr_model="whisper-1")
    syntheses = SampleSynthesis.objects.bulk_create([
        SampleSynthesis(run=run, sample=s, normalized=nt, text=nt.text, gender="female", voice=voice)
        for s, nt in zip(rows, normalized, strict=True)], batch_size=5000)
    attempts = SynthesisAttempt.objects.bulk_create([
        SynthesisAttempt(synthesis=syn, number=1, idempotency_key=f"bench-{syn.pk}", voice=voice, seed=0, text=syn.text,
                         text_sha256=hashlib.sha256(syn.text.encode()).hexdigest(), tts_backend="openai",
                         tts_model="gpt-4o-mini-tts", asr_model="whisper-1", asset=asset, transcript=syn.text,
                         cer=0.0, wer=0.0, passed=True)
        for syn, asset in zip(syntheses, assets, strict=True)], batch_size=5000)
    for syn, attempt in zip(syntheses, attempts, strict=True):
        syn.final_attempt, syn.status = attempt, "passed"
    SampleSynthesis.objects.bulk_update(syntheses, ["final_attempt", "status"], batch_size=5000)
    return bench


def _rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def measure(label: str, build) -> None:
    """Seconds of the whole build; memory as the process's peak RSS during it over its RSS before (no
    tracemalloc: it would slow the build several times over)."""
    from apps.releases.models import Release

    before = _rss_mib()
    started = time.perf_counter()
    release = build()
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    release = Release.objects.get(pk=release.pk)
    print(f"{label}: {release.status}, {release.item_count:,} items, {release.files.count():,} files; "
          f"{seconds:.1f} s; peak RSS {peak:.0f} MiB ({max(0.0, peak - before):.0f} MiB over the {before:.0f} MiB before); "
          f"archive {release.archive_bytes / 2**20:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clips", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=10000)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="sori-release-bench-"))
    os.environ["SORI_DATA_DIR"] = str(workdir)
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "MEDIA_ROOT"):
        os.environ.pop(name, None)
    os.environ["SORI_JOB_RUNNER"] = "sync"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from django.core.management import call_command

    from apps.accounts.models import User
    from apps.listening import exports  # noqa: F401 (imported before timing, as in a running server)
    from apps.releases.kinds import registry
    from apps.releases.services import create_release

    registry()
    call_command("migrate", verbosity=0)
    admin = User.objects.create(username="bench_admin", password="!")
    print(f"Setting up {args.clips:,} clips x 5 ratings and {args.samples:,} spoken-QA samples in {workdir} ...")
    test = mos_test(args.clips)
    bench = spoken_benchmark(args.samples, audio_offset=args.clips)
    measure(f"MOS release ({args.clips:,} clips x 5 ratings)", lambda: create_release(
        acting_user=admin, kind="mos", source_id=test.pk, name="bench-mos", version="1.0.0", license="CC-BY-4.0",
        sources=[{"name": "bench", "license": "CC-BY-4.0"}]))
    measure(f"spoken-QA release ({args.samples:,} samples with audio)",
            lambda: create_release(acting_user=admin, kind="spoken-qa", source_id=bench.pk, name="bench-qa", version="1.0.0"))


if __name__ == "__main__":
    main()
