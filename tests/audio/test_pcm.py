"""Audio as samples (apps.audio.pcm), pydub's replacement: decoding by libsndfile or ffmpeg, mono,
resampling, cuts in whole milliseconds, and WAVs that keep a source's sample format."""

import io

import numpy as np
import pytest
import soundfile

from apps.audio import ffmpeg, pcm, wavcheck


@pytest.fixture
def stereo_mp3(tmp_path):
    path = tmp_path / "stereo.mp3"
    ffmpeg.run(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1", "-ac", "2", str(path)])
    return path


def test_an_mp3_decodes_by_ffmpeg_from_its_path_or_its_bytes(stereo_mp3):
    from_path, from_bytes = pcm.decode(stereo_mp3), pcm.decode(stereo_mp3.read_bytes())
    for audio in (from_path, from_bytes):
        assert (audio.sample_rate, audio.channels) == (44100, 2)
        assert audio.seconds == pytest.approx(1.0, abs=0.05)
    assert pcm.decoded_shape(stereo_mp3) == (from_path.frames, 44100, 2)


def test_mono_16k_is_a_bare_16_bit_wav_of_the_same_length(stereo_mp3):
    converted = pcm.decode(stereo_mp3).mono().resampled(16000)
    data = converted.wav()
    header, seconds = wavcheck.bare_wav(data)  # fmt and data chunks only: stored as it is
    assert (header.sample_rate, header.channels, header.block_align) == (16000, 1, 2)
    assert seconds == pytest.approx(converted.seconds) and seconds == pytest.approx(1.0, abs=0.05)


def test_a_cut_takes_whole_milliseconds_and_a_wav_keeps_its_source_format(tmp_path):
    samples = (np.sin(np.arange(8000) / 5) * 0.5).astype(np.float32)
    buffer = io.BytesIO()
    soundfile.write(buffer, samples, 8000, subtype="PCM_24", format="WAV")
    data = buffer.getvalue()
    audio = pcm.decode(data)
    cut = audio.cut(0.2504, 0.7509)  # 250 ms to 750 ms
    assert cut.frames == 4000 and cut.samples[0, 0] == audio.samples[2000, 0]
    assert pcm.wav_subtype_of(data) == "PCM_24"
    assert soundfile.info(io.BytesIO(cut.wav(subtype=pcm.wav_subtype_of(data)))).subtype == "PCM_24"


def test_an_mp3_is_written_out_as_16_bit(stereo_mp3):
    assert pcm.wav_subtype_of(stereo_mp3.read_bytes()) == "PCM_16"


def test_what_ffmpeg_cannot_decode_is_refused_with_its_own_words(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not audio at all" * 64)
    with pytest.raises(pcm.UndecodableAudio, match="Invalid data found when processing input"):
        pcm.decode(junk)
    with pytest.raises(pcm.UndecodableAudio, match="Invalid data found when processing input"):
        pcm.decoded_shape(junk)
