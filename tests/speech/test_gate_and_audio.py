"""The pure parts: what the CER comparison does, sentence splitting, joining with pauses, loudness, and
the balanced voice assignment."""

import io
import unicodedata

import numpy as np
import pyloudnorm
import pytest
import soundfile

from apps.audio import pcm
from apps.speech import assembly, gate, voices
from tests.fakes.speech_server import tone_wav


def test_spacing_punctuation_and_composition_do_not_count_as_errors():
    decomposed = unicodedata.normalize("NFD", "회의는 몇시에 시작 하나요")
    result = gate.check(text="회의는 몇 시에 시작하나요?", transcript=decomposed, threshold=0.1)
    assert (result.reference, result.hypothesis) == ("회의는몇시에시작하나요", "회의는몇시에시작하나요")
    assert result.cer == 0.0 and result.passed
    # The word error rate keeps the spaces, so the paper's measure still sees the spacing difference.
    assert result.wer == pytest.approx(3 / 4)


def test_the_cer_counts_substitutions_deletions_and_insertions_over_the_reference_characters():
    result = gate.check(text="회의는 몇 시에 시작하나요?", transcript="회의가 몇 시에 시작", threshold=0.1)
    assert result.cer == pytest.approx(4 / 11) and not result.passed
    assert ("substitute", "는", "가") in result.diff and ("delete", "하나요", "") in result.diff
    assert gate.check(text="가나다", transcript="가나다라", threshold=0.5).diff[-1] == ("insert", "", "라")


def test_the_threshold_is_inclusive_and_silence_fails():
    assert gate.check(text="가나다라마바사아자차", transcript="가나다라마바사아자카", threshold=0.1).passed
    silent = gate.check(text="가나다", transcript="", threshold=0.1)
    assert silent.cer == 1.0 and not silent.passed
    with pytest.raises(ValueError, match="empty"):
        gate.check(text="?!", transcript="가", threshold=0.1)


def test_the_asr_side_goes_through_the_normalizer_hook(monkeypatch):
    monkeypatch.setattr(gate, "normalize_transcript", lambda text: text.replace("3개", "세 개"))
    assert gate.check(text="사과 세 개", transcript="사과 3개", threshold=0.0).passed


def test_sentences_split_at_korean_endings_and_line_breaks():
    assert assembly.split_sentences("안녕하세요. 오늘은 맑습니다 내일은 비가 옵니다\n세 시입니다") == [
        "안녕하세요.", "오늘은 맑습니다", "내일은 비가 옵니다", "세 시입니다"]
    assert assembly.split_sentences("  \n ") == []


def test_the_joined_audio_lasts_the_pieces_plus_the_pauses_at_the_run_rate():
    pieces = [pcm.decode(tone_wav(440, seconds=s, rate=24000)) for s in (0.5, 0.8, 0.3)]
    joined = assembly.join_pieces(pieces, pause_ms=250, sample_rate=16000, target_lufs=-23.0)
    assert joined.piece_seconds == pytest.approx([0.5, 0.8, 0.3])
    assert joined.duration_seconds == pytest.approx(0.5 + 0.8 + 0.3 + 2 * 0.25, abs=0.002)
    decoded = soundfile.info(io.BytesIO(joined.wav))
    assert (decoded.samplerate, decoded.channels, decoded.subtype) == (16000, 1, "PCM_16")
    assert decoded.duration == pytest.approx(joined.duration_seconds, abs=0.002)


def test_the_joined_audio_is_brought_to_the_target_loudness():
    tone = pcm.decode(tone_wav(440, seconds=1.0, rate=24000))
    quiet = pcm.Pcm(tone.samples * 10 ** (-20 / 20), tone.sample_rate)  # 20 dB down
    joined = assembly.join_pieces([quiet, quiet], pause_ms=100, sample_rate=24000, target_lufs=-23.0)
    samples = soundfile.read(io.BytesIO(joined.wav), dtype="int16")[0].astype(np.float64) / 32768
    assert pyloudnorm.Meter(24000).integrated_loudness(samples) == pytest.approx(-23.0, abs=0.5)
    assert joined.loudness_lufs < -30  # it was measured quiet and raised


def test_voices_are_dealt_balanced_per_gender_and_per_voice_and_reproducibly():
    ids = list(range(1, 102))
    assignment = voices.assign(ids, {"female": [1, 2], "male": [3, 4, 5]}, seed=3)
    genders = [g for g, _ in assignment.values()]
    assert abs(genders.count("female") - genders.count("male")) <= 1
    female_slots = [slot for g, slot in assignment.values() if g == "female"]
    male_slots = [slot for g, slot in assignment.values() if g == "male"]
    assert abs(female_slots.count(0) - female_slots.count(1)) <= 1
    assert max(male_slots.count(s) for s in range(3)) - min(male_slots.count(s) for s in range(3)) <= 1
    assert voices.assign(ids, {"female": [1, 2], "male": [3, 4, 5]}, seed=3) == assignment
    assert voices.assign(ids, {"female": [1, 2], "male": [3, 4, 5]}, seed=4) != assignment
    assert {g for g, _ in voices.assign(ids, {"female": [1], "male": []}, seed=0).values()} == {"female"}


def test_a_retry_moves_to_the_next_voice_of_the_gender_and_a_new_seed():
    pool = ["a", "b", "c"]
    assert [voices.voice_for_attempt(pool, 2, i) for i in range(3)] == ["c", "a", "b"]
    assert len({voices.attempt_seed(0, 5, n) for n in (1, 2, 3)}) == 3
    assert voices.attempt_seed(0, 5, 1) == voices.attempt_seed(0, 5, 1)
