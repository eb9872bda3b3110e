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


def synthesize_benchmark(benchmark, admin):
    """The speech stage over a demo benchmark's normalized Korean texts, inline (espeak-ng and, in the demo, the
    scripted demo ASR): the real synthesis run, so a Korean release of the benchmark carries real audio. None
    when the backends are not configured (say, a real ASR model without its key) or nothing waits for speech."""
    from apps.core.errors import Conflict
    from apps.jobs.services import run_here
    from apps.speech.models import SampleSynthesis
    from apps.speech.services import backends_missing, start_run
    from apps.transfer.selectors import ready_for_speech

    done = set(SampleSynthesis.objects.filter(run__benchmark=benchmark).values_list("sample_id", flat=True))
    if backends_missing() or all(t.sample_id in done for t in ready_for_speech(benchmark=benchmark)):
        return None
    try:
        with run_here():
            run = start_run(acting_user=admin, benchmark=benchmark)
    except Conflict:
        return None
    return run
