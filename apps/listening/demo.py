"""Demo data: a small KOMOS-style test of espeak-ng Korean clips (one degraded: low-passed, resampled down, noisy) plus two gold
clips, imported through the same manifest path as a real test, with three demo listeners' ratings."""

import csv
import random
import tempfile
from datetime import timedelta
from pathlib import Path

import numpy as np
from django.utils import timezone

from apps.accounts.models import User
from apps.audio import pcm
from apps.audio.espeak import synthesize_wav
from apps.listening import services
from apps.listening.models import ListeningTest

DEMO_NAME = "Demo: Korean speech quality"  # shown to listeners: says nothing about the systems

# (clip_id, text, speaker voice settings (wpm, pitch), style, category)
DEMO_CLIPS = [
    ("demo-01", "오늘 날씨가 정말 좋네요.", ("v1", 160, 50), "read", "F"),
    ("demo-02", "거실 불 좀 꺼 줄래?", ("v1", 160, 50), "spontaneous", "C"),
    ("demo-03", "내일 회의는 몇 시에 시작하나요?", ("v2", 140, 35), "read", "Q"),
    ("demo-04", "와, 진짜 대박이다!", ("v2", 140, 35), "spontaneous", "E"),
    ("demo-05", "음... 글쎄요, 잘 모르겠어요.", ("v3", 180, 65), "spontaneous", "P"),
    ("demo-06", "할머니께서 진지를 잡수셨습니다.", ("v3", 180, 65), "read", "honorifics"),
    ("demo-07", "신라 시대의 역사를 공부합니다.", ("v4", 150, 45), "read", "liaison"),
    ("demo-08", "사과 세 개와 배 스물한 개를 샀어요.", ("v4", 150, 45), "read", "numerals"),
    ("demo-09", "물을 끓여서 국수를 삶아 먹었다.", ("v5", 170, 55), "read", "tensification"),
    ("demo-10", "비가 와서 우리는 집에 있기로 했지만 결국 나갔다.", ("v5", 170, 55), "read", "S"),
    ("demo-11", "지하철역까지 어떻게 가요?", ("v6", 130, 40), "spontaneous", "Q"),
]
DEGRADED = ("demo-12", "오늘 날씨가 정말 좋네요.", ("v1", 160, 50), "read", "F")
GOLD = [
    # A clean clip every attentive listener rates fair or better, and a ruined one they rate poor or bad.
    ("gold-clean", "안녕하세요, 만나서 반갑습니다.", ("v7", 150, 50), (3, 5)),
    ("gold-ruined", "안녕하세요, 만나서 반갑습니다.", ("v7", 150, 50), (1, 2)),
]


def _degrade(wav: Path, out: Path, *, heavy: bool = False) -> None:
    """Telephone-band, resampled down and noisy (heavier for the gold 'ruined' clip)."""
    from scipy.signal import butter, sosfilt  # here: scipy.signal takes about a second to import

    audio = pcm.decode(wav)
    low_pass = butter(1, 1200 if heavy else 3000, fs=audio.sample_rate, output="sos")
    audio = pcm.Pcm(sosfilt(low_pass, audio.samples, axis=0), audio.sample_rate).resampled(8000 if heavy else 11025)
    volume = 10 ** ((-8 if heavy else -22) / 20)  # white noise at -8 or -22 dBFS
    rng = np.random.default_rng(12)  # seeded: the demo's clips are the same every time
    noise = rng.uniform(-volume, volume, audio.samples.shape)
    out.write_bytes(pcm.Pcm(audio.samples + noise, audio.sample_rate).wav(subtype="PCM_16"))


def write_demo_manifest(folder: Path) -> Path:
    rows = []
    for clip_id, text, (voice, wpm, pitch), style, category in DEMO_CLIPS:
        (folder / f"{clip_id}.wav").write_bytes(synthesize_wav(text, words_per_minute=wpm, pitch=pitch))
        rows.append([clip_id, f"{clip_id}.wav", text, voice, "tts", style, category, "espeak-ng", "", ""])
    clip_id, text, (voice, wpm, pitch), style, category = DEGRADED
    clean = folder / f"{clip_id}-clean.wav"
    clean.write_bytes(synthesize_wav(text, words_per_minute=wpm, pitch=pitch + 1))
    _degrade(clean, folder / f"{clip_id}.wav")
    rows.append([clip_id, f"{clip_id}.wav", text, voice, "degraded", style, category, "espeak-ng+noise", "", ""])
    for clip_id, text, (voice, wpm, pitch), (low, high) in GOLD:
        path = folder / f"{clip_id}.wav"
        if clip_id == "gold-ruined":
            source = folder / "gold-source.wav"
            source.write_bytes(synthesize_wav(text, words_per_minute=wpm, pitch=pitch + 2))
            _degrade(source, path, heavy=True)
        else:
            path.write_bytes(synthesize_wav(text, words_per_minute=wpm, pitch=pitch))
        rows.append([clip_id, path.name, text, voice, "tts", "read", "gold", "espeak-ng", low, high])
    manifest = folder / "manifest.csv"
    with open(manifest, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["clip_id", "audio", "text", "speaker", "source_type", "style", "category", "system", "gold_min", "gold_max"])
        writer.writerows(rows)
    return manifest


def seed_listening_demo(stdout=None):
    existing = ListeningTest.objects.filter(name=DEMO_NAME).first()
    if existing:
        if stdout:
            stdout.write(f"listening: demo test exists ({existing.pk})")
        return existing
    with tempfile.TemporaryDirectory() as tmp:
        test = services.import_listening_test(name=DEMO_NAME, manifest=write_demo_manifest(Path(tmp)))
    services.publish_test(test=test, acting_user=None)
    # The demo listeners rated earlier today: each rating comes a clip's length after its clip was served, as
    # the server requires of a real playback.
    clock = timezone.now() - timedelta(hours=3)
    # Three demo listeners rate everything, so the dashboard has numbers; listener1-4 still have clips.
    rng = random.Random(3)
    # Each clip has a latent quality the demo listeners agree on, up to a little noise.
    quality = {c.pk: 1.6 if c.source_type == "degraded" else rng.uniform(2.4, 4.8) for c in test.clips.all()}
    for username in ("listener5", "listener6", "listener7"):
        user = User.objects.filter(username=username).first()
        if user is None:
            continue
        services.record_consent(test=test, acting_user=user)
        while (assignment := services.next_assignment(test=test, acting_user=user, now=clock)) is not None:
            clip = test.clips.select_related("asset").get(work_item_id=assignment.item_id)
            if clip.is_gold:
                score = rng.randint(clip.gold_min, clip.gold_max)
            else:
                score = max(1, min(5, round(quality[clip.pk] + rng.gauss(0, 0.45))))
            clock += timedelta(seconds=clip.asset.duration_seconds + 0.2)
            services.report_playback(clip=clip, acting_user=user, now=clock)
            clock += timedelta(seconds=rng.uniform(1.0, 3.0))
            services.rate_clip(clip=clip, acting_user=user, score=score, now=clock)
    if stdout:
        stdout.write(f"listening: demo test {test.pk} with {test.clips.count()} clips")
    return test
