"""Corpus import: KSS, manifests (CSV, JSONL), Zeroth-Korean and KsponSpeech; atomic, every bad row named."""

import unicodedata
import wave

import pytest
import soundfile

from apps.authoring.corpora import clean_written
from apps.authoring.models import Clip, Corpus
from apps.authoring.services import import_corpus
from apps.core.errors import Conflict, FileRefused, InvalidInput
from tests.audio_looks import count_looks
from tests.authoring.conftest import seoul_rows
from tests.conftest import write_wav


def test_kss_import_keeps_raw_text_nfc_and_records_licence(db, corpus_folder):
    corpus = import_corpus(name="KSS", fmt="kss", path=corpus_folder.kss())
    assert corpus.license == "CC-BY-NC-SA-4.0"  # KSS's licence, recorded without being asked
    clips = list(corpus.clips.order_by("utterance_id"))
    assert [c.utterance_id for c in clips] == ["1_0000", "1_0001", "1_0002"]
    second = clips[1]
    assert second.clean_transcript == "오늘 회의는 세 시에 시작합니다."  # the expanded column, as read
    assert unicodedata.is_normalized("NFC", second.transcript)
    assert (second.gender, second.num_speakers, second.speaker_id) == ("female", 1, "kss")
    assert second.source_file == "transcript.v.1.4.txt" and second.source_line == 2
    assert second.audio.duration_seconds == pytest.approx(1.0, abs=0.01)


def test_a_decomposed_transcript_is_stored_composed(db, corpus_folder):
    nfd = unicodedata.normalize("NFD", "한국어 음성")
    path = corpus_folder.kss([("a.wav", nfd, nfd, "1.0", "Korean speech")])
    clip = import_corpus(name="KSS-nfd", fmt="kss", path=path).clips.get()
    assert clip.raw_transcript == nfd and clip.transcript == "한국어 음성" and clip.clean_transcript == "한국어 음성"


def test_manifest_csv_and_jsonl_carry_speaker_metadata(db, corpus_folder):
    corpus = import_corpus(name="Seoul", fmt="manifest", path=corpus_folder.manifest(seoul_rows()), license="CC-BY-NC-2.0")
    by_id = {c.utterance_id: c for c in corpus.clips.all()}
    assert (by_id["seoul-0"].gender, by_id["seoul-0"].age_group, by_id["seoul-0"].num_speakers) == ("male", "young", 1)
    assert (by_id["seoul-3"].gender, by_id["seoul-3"].age_group) == ("male", "young")  # 남성, 청년 spellings
    rows = [{"utterance_id": "j1", "audio": "j/j1.wav", "transcript": "좋은 아침입니다"}]  # metadata optional
    jsonl = import_corpus(name="J", fmt="manifest", path=corpus_folder.manifest(rows, name="m.jsonl"), license="MIT")
    assert jsonl.clips.get().gender == "" and jsonl.clips.get().num_speakers is None


def test_each_audio_file_is_looked_at_once_and_stored_from_that_look(db, corpus_folder, tmp_path, monkeypatch):
    # The check's findings are what the store writes (issue 23): no file is read or decoded a second time,
    # not even a FLAC that only ffmpeg can decode, nor a file that two rows share.
    rows = seoul_rows(3)
    soundfile.write(corpus_folder.root / "seoul-flac.flac", *soundfile.read(write_wav(tmp_path / "tone.wav", freq=97.0)),
                    format="FLAC")
    rows.append({**rows[0], "utterance_id": "seoul-flac", "audio": "seoul-flac.flac"})
    rows.append({**rows[1], "utterance_id": "seoul-shared"})  # the same file as seoul-1
    path = corpus_folder.manifest(rows)
    looks, decodes = count_looks(monkeypatch)

    corpus = import_corpus(name="Seoul", fmt="manifest", path=path, license="CC-BY-NC-2.0")
    assert looks == {"seoul-0.wav": 1, "seoul-1.wav": 1, "seoul-2.wav": 1, "seoul-flac.flac": 1}
    assert decodes == {"seoul-flac.flac": 1}  # PCM WAVs are read from their header alone
    clips = {c.utterance_id: c for c in corpus.clips.select_related("audio")}
    assert len(clips) == 5 and clips["seoul-shared"].audio == clips["seoul-1"].audio
    assert clips["seoul-flac"].audio.format == "flac"
    assert clips["seoul-flac"].audio.duration_seconds == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize("change, expected", [
    ({"gender": "unknown"}, "manifest.csv line 3: gender: unknown gender 'unknown'"),
    ({"age_group": "teen"}, "manifest.csv line 3: age_group: unknown age group 'teen'"),
    ({"num_speakers": "0"}, "manifest.csv line 3: num_speakers: number of speakers must be a positive whole number"),
    ({"num_speakers": "2.5"}, "manifest.csv line 3: num_speakers: number of speakers must be a positive whole number"),
    ({"utterance_id": "seoul-0"}, "manifest.csv line 3: utterance_id: duplicate id 'seoul-0' (first at manifest.csv line 2)"),
    ({"audio": "wav/nowhere.wav"}, "manifest.csv line 3: audio: missing audio file 'wav/nowhere.wav'"),
])
def test_each_bad_manifest_row_is_named_and_nothing_is_stored(db, corpus_folder, change, expected):
    rows = seoul_rows()
    rows[1].update(change)
    path = corpus_folder.manifest(rows)
    (corpus_folder.root / "wav/nowhere.wav").unlink(missing_ok=True)  # written with the others; make it missing
    with pytest.raises(FileRefused) as refused:
        import_corpus(name="Seoul", fmt="manifest", path=path, license="CC-BY-NC-2.0")
    assert any(str(p).startswith(expected) for p in refused.value.problems), refused.value.problems
    assert not Corpus.objects.exists() and not Clip.objects.exists()


def test_undecodable_audio_is_named_and_every_problem_is_reported_at_once(db, corpus_folder):
    rows = seoul_rows()
    rows[2]["gender"] = "x"
    path = corpus_folder.manifest(rows)
    (corpus_folder.root / rows[0]["audio"]).write_bytes(b"RIFF not really a wave file")
    with pytest.raises(FileRefused) as refused:
        import_corpus(name="Seoul", fmt="manifest", path=path, license="CC-BY-NC-2.0")
    problems = [str(p) for p in refused.value.problems]
    assert any(p.startswith("manifest.csv line 2: audio: undecodable audio 'wav/seoul-0.wav'") for p in problems)
    assert any(p.startswith("manifest.csv line 4: gender:") for p in problems)
    assert not Corpus.objects.exists()


def test_a_kss_line_with_missing_fields_is_named(db, corpus_folder):
    path = corpus_folder.kss()
    path.write_text(path.read_text(encoding="utf-8") + "2/2_0000.wav|only two\n", encoding="utf-8")
    with pytest.raises(FileRefused, match=r"transcript.v.1.4.txt line 4: row: expected 6 fields"):
        import_corpus(name="KSS", fmt="kss", path=path)


def test_a_manifest_corpus_needs_a_licence_and_a_free_name(db, corpus_folder, kss_corpus):
    path = corpus_folder.manifest(seoul_rows())
    with pytest.raises(InvalidInput) as missing:
        import_corpus(name="Seoul", fmt="manifest", path=path)
    assert missing.value.field == "license"
    with pytest.raises(Conflict):
        import_corpus(name="KSS", fmt="manifest", path=path, license="MIT")


def test_zeroth_reads_trans_files_and_gender_from_audio_info(db, corpus_folder):
    root = corpus_folder.root / "zeroth"
    (root / "train/105/003").mkdir(parents=True)
    (root / "AUDIO_INFO").write_text("SPEAKERID|NAME|SEX|SCRIPTID|DATASET\n105|조윤희|f|003|train\n", encoding="utf-8")
    (root / "train/105/003/105_003.trans.txt").write_text(
        "105_003_0001 그는 괜찮은 척하려고 애쓰는 것 같았다\n105_003_0002 지금 바로 출발합니다\n", encoding="utf-8")
    corpus_folder.wav("zeroth/train/105/003/105_003_0001.wav")
    corpus_folder.wav("zeroth/train/105/003/105_003_0002.wav")
    corpus = import_corpus(name="Zeroth", fmt="zeroth", path=root)
    clip = corpus.clips.get(utterance_id="105_003_0002")
    assert (clip.speaker_id, clip.gender, clip.clean_transcript) == ("105", "female", "지금 바로 출발합니다")
    assert clip.source_file == "train/105/003/105_003.trans.txt" and clip.source_line == 2


def test_kspon_reads_cp949_text_and_raw_pcm_and_cleans_dual_spellings(db, corpus_folder):
    root = corpus_folder.root / "kspon" / "KsponSpeech_0001"
    root.mkdir(parents=True)
    raw = "o/ 그 가격이 (70%)/(칠 십 퍼센트) 정도 b/ 올랐어요 음/ 진짜+"
    (root / "KsponSpeech_000001.txt").write_bytes(raw.encode("cp949"))
    tone = corpus_folder.wav("tone.wav", seconds=0.5)
    with wave.open(str(tone)) as w:
        (root / "KsponSpeech_000001.pcm").write_bytes(w.readframes(w.getnframes()))
    corpus = import_corpus(name="Kspon", fmt="kspon", path=root.parent, license="LicenseRef-AIHub")
    clip = corpus.clips.get()
    assert clip.raw_transcript == raw
    assert clip.clean_transcript == "그 가격이 70% 정도 올랐어요 음 진짜"
    assert clip.audio.sample_rate == 16000 and clip.audio.duration_seconds == pytest.approx(0.5, abs=0.01)


def test_clean_written_takes_the_written_side_and_drops_tags():
    assert clean_written("(3시)/(세 시)에 n/ 만나요") == "3시에 만나요"
    assert clean_written("l/ 아 u/ 그래요*") == "아 그래요"
