"""Demo reference voices: a female and a male Korean clip made on the spot with espeak-ng."""

from apps.audio.demo import demo_asset
from apps.speech.models import Gender, ReferenceVoice

VOICES = [
    ("demo-female", Gender.FEMALE, "안녕하세요. 오늘은 날씨가 맑습니다.", 60),
    ("demo-male", Gender.MALE, "반갑습니다. 회의는 세 시에 시작합니다.", 35),
]


def seed(stdout) -> None:
    made = 0
    for name, gender, transcript, pitch in VOICES:
        if ReferenceVoice.objects.filter(name=name).exists():
            continue
        clip = demo_asset(transcript, name=f"{name}.wav", pitch=pitch)
        ReferenceVoice.objects.create(name=name, gender=gender, transcript=transcript, clip=clip)
        made += 1
    stdout.write(f"  speech: {made} demo reference voices (espeak-ng); without SORI_ASR_MODEL ./scripts/demo uses the "
                 "scripted demo ASR (demo answers, not a real model)")
