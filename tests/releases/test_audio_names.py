"""Every release kind names each audio file once, with the extension its bytes call for: an id that keeps its
source's file name ("c000.wav", "wq_0001.wav") gave "c000.wav.wav" before, and MP3 bytes must not be named
.wav."""

import json

import pytest

from apps.audio import ffmpeg
from apps.audio.naming import file_name
from apps.audio.services import import_audio_file
from apps.releases.writing import files_under
from tests.releases.test_kmmau import kmmau_set  # noqa: F401 (fixture)
from tests.releases.test_spoken_qa import _translate, synthesize, versions  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def _audio_files(folder):
    """The release's audio: every file under its audio folder (audio/, or Audios/ in HPSU's own layout)."""
    return sorted(p.relative_to(folder).as_posix() for p in files_under(folder)
                  if p.parts[len(folder.parts)] in ("audio", "Audios"))


def _kind_of_bytes(path) -> str:
    head = path.read_bytes()[:12]
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav"
    if head[:3] == b"ID3" or head[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "mp3"
    return "?"


def _assert_named_once_by_their_bytes(folder):
    names = _audio_files(folder)
    assert names
    for name in names:
        assert ".wav." not in name and ".mp3." not in name, name
        assert name.rsplit(".", 1)[1] == _kind_of_bytes(folder / name), name
    return names


def _mp3(make_wav, name):
    wav = make_wav(f"{name}.wav", seconds=0.4, freq=523)
    mp3 = wav.with_suffix(".mp3")
    ffmpeg.run(["-i", str(wav), str(mp3)])
    asset, _ = import_audio_file(mp3)
    assert asset.format == "mp3"
    return asset


def test_the_name_takes_the_id_once_and_the_extension_of_the_bytes(make_wav):
    wav, _ = import_audio_file(make_wav("tone.wav"))
    mp3 = _mp3(make_wav, "other")
    assert file_name("wq_0001.wav", wav, fallback="x") == "wq_0001.wav"
    assert file_name("wq_0001.WAV", wav, fallback="x") == "wq_0001.wav"
    assert file_name("wq_0001.wav", mp3, fallback="x") == "wq_0001.mp3"  # the bytes decide
    assert file_name("clip 7", mp3, fallback="x") == "clip_7.mp3"
    assert file_name("v1.2", wav, fallback="x") == "v1.2.wav"  # a dot that is no audio extension stays
    assert file_name(".wav", wav, fallback="clip9") == "clip9.wav"


def test_a_mos_release_names_clips_whose_ids_keep_their_extension_once(rated_test, build, extracted, make_wav):
    clips = list(rated_test.clips.regular().order_by("clip_id"))  # gold clips are not released
    for clip in clips:
        clip.clip_id += ".wav"
        clip.save(update_fields=["clip_id"])
    clips[0].asset = _mp3(make_wav, "mp3clip")  # a source that called MP3 bytes .wav
    clips[0].save(update_fields=["asset"])
    folder = extracted(build("mos", rated_test))
    names = _assert_named_once_by_their_bytes(folder)
    assert f"audio/{clips[0].clip_id.removesuffix('.wav')}.mp3" in names
    assert f"audio/{clips[1].clip_id}" in names


def test_a_kmmau_release_names_utterances_whose_ids_keep_their_extension_once(kmmau_set, build, extracted):  # noqa: F811
    from apps.authoring.models import Clip

    for clip in Clip.objects.all():
        clip.utterance_id += ".wav"
        clip.save(update_fields=["utterance_id"])
    folder = extracted(build("kmmau", kmmau_set, name="kmmau"))
    names = _assert_named_once_by_their_bytes(folder)
    rows = json.loads((folder / "kmmau.json").read_text(encoding="utf-8"))
    assert {row["audio_id"].removeprefix("./") for row in rows} <= set(names)


def test_a_spoken_qa_release_names_samples_whose_ids_keep_their_extension_once(benchmark, versions, build, extracted, synthesize):  # noqa: F811
    from apps.sources.models import SourceSample

    sample = SourceSample.objects.filter(subset="sd-qa").order_by("pk").first()
    sample.source_id = "wq_0001.wav"
    sample.save(update_fields=["source_id"])
    synthesize(_translate(sample, versions, "거미는 다리가 몇 개인가요?"), [0.0])
    folder = extracted(build("spoken-qa", benchmark, name="kvb"))
    assert _assert_named_once_by_their_bytes(folder) == ["audio/sd-qa/wq_0001.wav"]


def test_an_hpsu_release_keeps_the_source_s_own_audio_paths(settled_project, build, extracted):
    folder = extracted(build("hpsu", settled_project, name="hpsu"))
    names = _assert_named_once_by_their_bytes(folder)
    rows = json.loads((folder / "HPSU_data.json").read_text(encoding="utf-8"))
    assert {row["audio_path"] for row in rows} <= set(names)
