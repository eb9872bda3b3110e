import hashlib
import subprocess
from pathlib import Path

import pytest
import soundfile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.audio import inspection, services, store
from apps.audio.info import AudioRejected
from apps.audio.models import AudioAsset
from apps.core.errors import FileRefused
from tests.audio_looks import count_looks


def stored_files(settings) -> list[Path]:
    root = Path(settings.MEDIA_ROOT)
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def test_a_valid_wav_is_described(db, make_wav):
    asset, created = services.import_audio_file(make_wav("ok.wav", seconds=1.5, rate=22050, channels=2))
    assert created
    assert (asset.format, asset.sample_rate, asset.channels) == ("wav", 22050, 2)
    assert asset.duration_seconds == pytest.approx(1.5, abs=0.01)
    assert len(asset.sha256) == 64 and asset.size_bytes > 0


def test_the_same_file_imported_twice_is_stored_once(db, make_wav, settings):
    path = make_wav("a.wav")
    first, _ = services.import_audio_file(path)
    again, created = services.import_audio_file(path, name="renamed.wav")
    assert not created and again.pk == first.pk
    assert AudioAsset.objects.count() == 1 and len(stored_files(settings)) == 1


def test_a_text_file_named_wav_is_refused_with_its_name(db, tmp_path):
    path = tmp_path / "notes.wav"
    path.write_text("this is not audio at all\n" * 20)
    with pytest.raises(AudioRejected, match=r"^notes\.wav: not an audio file"):
        inspection.inspect_audio(path)


def test_an_empty_file_is_refused(db, tmp_path):
    path = tmp_path / "empty.wav"
    path.write_bytes(b"")
    with pytest.raises(AudioRejected, match=r"^empty\.wav: the file is empty"):
        inspection.inspect_audio(path)


def test_a_truncated_wav_is_refused(db, make_wav):
    path = make_wav("cut.wav", seconds=2.0)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(AudioRejected, match=r"^cut\.wav: the file is truncated: its header promises 2\.00 s"):
        inspection.inspect_audio(path)


def test_a_wav_with_zero_duration_is_refused(db, make_wav):
    path = make_wav("silence.wav", seconds=0)
    with pytest.raises(AudioRejected, match=r"^silence\.wav: the audio has zero duration$"):
        inspection.inspect_audio(path)


def test_an_oversized_file_is_refused_before_decoding(db, make_wav, settings):
    settings.AUDIO_MAX_BYTES = 10_000
    path = make_wav("long.wav", seconds=1.0)
    with pytest.raises(AudioRejected, match=r"^long\.wav: the file is 32,044 bytes, over the limit of 10,000"):
        inspection.inspect_audio(path)


def test_a_folder_import_with_one_bad_file_keeps_nothing(db, make_wav, tmp_path, settings):
    folder = tmp_path / "clips"
    make_wav("clips/one.wav", freq=300)
    make_wav("clips/two.wav", freq=400)
    (folder / "three.wav").write_text("not audio")
    with pytest.raises(FileRefused) as refused:
        services.import_folder(folder)
    assert refused.value.lines() == ["three.wav: not an audio file (ffprobe found no audio stream)"]
    assert AudioAsset.objects.count() == 0
    assert stored_files(settings) == []


def test_a_folder_import_looks_at_each_file_once_and_stores_what_it_found(db, make_wav, tmp_path, monkeypatch):
    # The check's findings are what the store writes (issue 23): no file is inspected or decoded twice.
    make_wav("clips/one.wav", freq=300)
    make_wav("clips/two.wav", freq=400)
    soundfile.write(tmp_path / "clips" / "three.flac", *soundfile.read(make_wav("tone.wav", freq=97)), format="FLAC")
    looks, decodes = count_looks(monkeypatch)
    assets = services.import_folder(tmp_path / "clips")
    assert looks == {"one.wav": 1, "two.wav": 1, "three.flac": 1}
    assert decodes == {"three.flac": 1}  # PCM WAVs are read from their header alone
    assert [a.original_name for a in assets] == ["one.wav", "three.flac", "two.wav"]
    assert [a.format for a in assets] == ["wav", "flac", "wav"] and all(a.file for a in assets)


def test_files_stored_inside_a_failed_transaction_are_deleted(db, make_wav, settings):
    with pytest.raises(RuntimeError), store.atomic_import():
        services.import_audio_file(make_wav("x.wav"))
        assert len(stored_files(settings)) == 1
        raise RuntimeError("a later row of the same import was bad")
    assert AudioAsset.objects.count() == 0
    assert stored_files(settings) == []


def test_the_import_command_reports_every_refused_file(db, make_wav, tmp_path):
    make_wav("batch/good.wav")
    (tmp_path / "batch" / "bad.wav").write_bytes(b"")
    with pytest.raises(CommandError, match=r"nothing was imported:\n  bad\.wav: the file is empty"):
        call_command("import_audio", str(tmp_path / "batch"))
    assert AudioAsset.objects.count() == 0


def test_conversion_gives_16k_mono_wav_linked_to_its_original(db, make_wav):
    original, _ = services.import_audio_file(make_wav("stereo.wav", rate=44100, channels=2, seconds=1.0))
    converted = services.convert_to_16k_mono(original)
    assert (converted.format, converted.sample_rate, converted.channels) == ("wav", 16000, 1)
    assert converted.converted_from == original
    assert converted.duration_seconds == pytest.approx(1.0, abs=0.01)
    assert services.convert_to_16k_mono(converted) == converted


def test_the_admin_upload_validates_and_names_the_file(client_for, admin, make_wav):
    client = client_for(admin)
    bad = SimpleUploadedFile("broken.wav", b"RIFF....not really", content_type="audio/wav")
    response = client.post("/admin/audio/audioasset/add/", {"upload": bad})
    assert response.status_code == 200
    assert "broken.wav: not an audio file" in response.content.decode()
    assert AudioAsset.objects.count() == 0
    good = SimpleUploadedFile("good.wav", make_wav("good.wav").read_bytes(), content_type="audio/wav")
    response = client.post("/admin/audio/audioasset/add/", {"upload": good, "convert": "on"})
    assert response.status_code == 302
    assert AudioAsset.objects.get(original_name="good.wav").sample_rate == 16000


def test_a_wav_header_gives_the_same_description_as_decoding_it(db, make_wav):
    path = make_wav("stereo.wav", seconds=1.25, rate=22050, channels=2)
    from_header = inspection.inspect_audio(path)
    decoded = inspection._inspect_by_decoding(path, "stereo.wav", path.stat().st_size)
    assert from_header == decoded


def test_a_streamed_wav_without_a_data_size_is_described_by_what_it_holds(db, make_wav):
    path = make_wav("stream.wav", seconds=0.5)
    data = bytearray(path.read_bytes())
    offset = data.index(b"data") + 4
    data[offset:offset + 4] = (0xFFFFFFFF).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    assert inspection.inspect_audio(path).duration_seconds == pytest.approx(0.5, abs=0.001)


def test_many_files_are_checked_once_each_and_refusals_come_back_by_path(db, make_wav, tmp_path):
    good = make_wav("many/good.wav")
    bad = tmp_path / "many" / "bad.wav"
    bad.write_text("not audio")
    results = inspection.inspect_many([(good, "good.wav"), (bad, "bad.wav"), (good, "again.wav")])
    assert set(results) == {good.resolve(), bad.resolve()}
    assert results[good.resolve()].format == "wav"
    assert str(results[bad.resolve()]) == "bad.wav: not an audio file (ffprobe found no audio stream)"


# --- what is stored: no metadata (a tag could carry the transcript to a listener) ------------------------

TRANSCRIPT = "the secret transcript, by SystemX"


def with_wav_tags(path: Path) -> Path:
    """The WAV with a LIST/INFO chunk (title, artist) before its samples and an id3 chunk after them."""
    data = path.read_bytes()
    at = data.index(b"data")
    title = TRANSCRIPT.encode() + b"\0"
    info = b"INFO" + b"INAM" + len(title).to_bytes(4, "little") + title + (b"\0" if len(title) & 1 else b"")
    listing = b"LIST" + len(info).to_bytes(4, "little") + info
    id3 = b"ID3\x04\0\0\0\0\0\x20TIT2\0\0\0\x16\0\0\x03" + TRANSCRIPT.encode()[:19]
    body = data[12:at] + listing + data[at:] + b"id3 " + len(id3).to_bytes(4, "little") + id3
    path.write_bytes(b"RIFF" + (4 + len(body)).to_bytes(4, "little") + b"WAVE" + body)
    return path


def ffmpeg_mp3(path: Path, *, seconds: float = 1.0, rate: int = 16000, title: str | None = None) -> Path:
    tags = ["-metadata", f"title={title}", "-metadata", "artist=SystemX"] if title else []
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={rate}:duration={seconds}",
         *tags, str(path)], check=True,
    )
    return path


def served_bytes(client, asset) -> bytes:
    response = client.get(f"/audio/{asset.public_id}/")
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def test_a_wav_is_stored_and_served_without_its_list_info_and_id3_chunks(db, make_wav, client_for, admin):
    plain = make_wav("plain.wav", seconds=1.0, freq=610)
    tagged = with_wav_tags(make_wav("tagged.wav", seconds=1.0, freq=610))
    assert TRANSCRIPT.encode() in tagged.read_bytes() and inspection.inspect_audio(tagged).duration_seconds == 1.0
    asset, created = services.import_audio_file(tagged)
    body = served_bytes(client_for(admin), asset)
    assert created and TRANSCRIPT.encode() not in body and b"LIST" not in body and b"id3 " not in body
    assert body == plain.read_bytes()  # the same samples in the same header: only the chunks went
    assert (asset.sha256, asset.size_bytes) == (hashlib.sha256(body).hexdigest(), len(body))
    # The same audio, tagged or not, is one asset.
    assert services.import_audio_file(tagged, name="again.wav") == (asset, False)
    assert services.import_audio_file(plain) == (asset, False)


def test_an_mp3_is_stored_and_served_without_its_id3_title(db, tmp_path, client_for, admin):
    tagged = ffmpeg_mp3(tmp_path / "tagged.mp3", title=TRANSCRIPT)
    assert TRANSCRIPT.encode() in tagged.read_bytes()
    asset, created = services.import_audio_file(tagged)
    body = served_bytes(client_for(admin), asset)
    assert created and TRANSCRIPT.encode() not in body and b"SystemX" not in body and not body.startswith(b"ID3")
    assert (asset.sha256, asset.size_bytes, asset.format) == (hashlib.sha256(body).hexdigest(), len(body), "mp3")
    assert asset.duration_seconds == pytest.approx(1.0, abs=0.01)
    stored = tmp_path / "stored.mp3"
    stored.write_bytes(body)
    assert inspection.inspect_audio(stored).sha256 == asset.sha256  # stripping the stripped form changes nothing
    assert services.import_audio_file(tagged, name="again.mp3") == (asset, False)
    assert services.import_audio_file(stored) == (asset, False)


def test_a_listening_manifest_stores_clips_without_their_tags(db, make_wav, tmp_path):
    """store_validated (the manifest importers' bulk path) stores what inspect_many described."""
    tagged = with_wav_tags(make_wav("m/tagged.wav", freq=720))
    info = inspection.inspect_many([(tagged, "tagged.wav")])[tagged.resolve()]
    with store.atomic_import():
        asset = store.store_validated([(tagged, info, "tagged.wav")])[info.sha256]
    with asset.file.open("rb") as fh:
        body = fh.read()
    assert TRANSCRIPT.encode() not in body and hashlib.sha256(body).hexdigest() == asset.sha256


def test_a_one_second_16khz_mp3_made_by_ffmpeg_is_accepted(db, tmp_path):
    # Its header promises 1.08 s: the encoder's delay and padding, which the decoder drops.
    info = inspection.inspect_audio(ffmpeg_mp3(tmp_path / "one.mp3", seconds=1.0, rate=16000))
    assert (info.format, info.sample_rate) == ("mp3", 16000)
    assert info.duration_seconds == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize("rate", [8000, 22050, 44100])
def test_a_short_mp3_at_any_rate_is_accepted_and_a_cut_one_still_refused(db, tmp_path, rate):
    whole = ffmpeg_mp3(tmp_path / "whole.mp3", seconds=0.3 if rate == 8000 else 2.0, rate=rate)
    inspection.inspect_audio(whole)
    long = ffmpeg_mp3(tmp_path / "long.mp3", seconds=2.0, rate=rate)
    cut = tmp_path / "cut.mp3"
    cut.write_bytes(long.read_bytes()[: long.stat().st_size * 3 // 4])
    with pytest.raises(AudioRejected, match=r"^cut\.mp3: the file is truncated: its header promises 2\.\d\d s"):
        inspection.inspect_audio(cut)


def test_a_wav_of_thousands_of_empty_chunks_is_refused(db, make_wav):
    path = make_wav("chunks.wav", seconds=0.1)
    data = path.read_bytes()
    at = data.index(b"data")
    body = data[12:at] + b"junk\0\0\0\0" * 5000 + data[at:]
    path.write_bytes(b"RIFF" + (4 + len(body)).to_bytes(4, "little") + b"WAVE" + body)
    with pytest.raises(AudioRejected, match=r"^chunks\.wav: the WAV has more than 1,000 chunks$"):
        inspection.inspect_audio(path)
