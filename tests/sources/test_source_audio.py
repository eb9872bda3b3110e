"""A source benchmark's English audio goes into the audio store (issue 33, the HIGH finding): from a zip upload or
a folder under an import root, each file checked as audio from its bytes, all or nothing. No folder outside the
import roots is read (links resolved first), and evaluation never takes a server path from a request."""

import io
import json
import os
import zipfile

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.audio.models import AudioAsset
from apps.core.errors import ApplicationError, InvalidInput
from apps.sources.models import SourceBenchmark, SourceSample
from apps.sources.services import import_benchmark
from apps.sources.source_audio import import_audio_folder, import_audio_zip
from tests.conftest import write_wav


@pytest.fixture
def root(tmp_path, settings):
    folder = tmp_path / "imports"
    folder.mkdir()
    settings.IMPORT_ROOTS = [folder.resolve()]
    return folder


@pytest.fixture
def benchmark(db, tmp_path):
    rows = [{"prompt": "What is the capital of Australia?", "reference": "Canberra"},
            {"prompt": "Who wrote Hamlet?", "reference": "Shakespeare"}]
    path = tmp_path / "sd-qa.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    import_benchmark(fmt="voicebench", subset="sd-qa", path=path)
    return SourceBenchmark.objects.get(name="voicebench")


def _audio_folder(folder, benchmark):
    """One WAV per sample, named <subset>/<source id>.wav (VoiceBench's records name no file)."""
    for n, sample in enumerate(SourceSample.objects.filter(benchmark=benchmark).order_by("source_id")):
        (folder / sample.subset).mkdir(parents=True, exist_ok=True)
        write_wav(folder / sample.subset / f"{sample.source_id}.wav", seconds=0.1, freq=300 + 100 * n)
    return folder


def _zip_of(folder) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    buffer.seek(0)
    return buffer


@pytest.mark.django_db
def test_a_folder_under_the_import_root_gives_each_sample_its_stored_audio(root, benchmark):
    result = import_audio_folder(benchmark=benchmark, folder=_audio_folder(root / "vb", benchmark))

    samples = list(SourceSample.objects.filter(benchmark=benchmark).select_related("audio"))
    assert result.linked == 2 and result.stored == 2 and not result.without_audio
    assert all(s.audio is not None and s.audio.format == "wav" for s in samples)
    assert len({s.audio.sha256 for s in samples}) == 2


@pytest.mark.parametrize("outside", ["/proc/self", "/etc", "/"])
@pytest.mark.django_db
def test_a_folder_outside_the_import_roots_is_refused_without_saying_what_is_there(root, benchmark, outside):
    with pytest.raises(InvalidInput, match="not under an import root") as refused:
        import_audio_folder(benchmark=benchmark, folder=outside)
    assert "environ" not in refused.value.message and "passwd" not in refused.value.message
    assert not AudioAsset.objects.exists()


@pytest.mark.django_db
def test_a_link_out_of_the_import_root_is_refused_after_resolving_it(root, benchmark, tmp_path):
    outside = _audio_folder(tmp_path / "elsewhere", benchmark)
    os.symlink(outside, root / "looks-inside")
    with pytest.raises(InvalidInput, match="not under an import root"):
        import_audio_folder(benchmark=benchmark, folder=root / "looks-inside")
    with pytest.raises(InvalidInput, match="not under an import root"):
        import_audio_folder(benchmark=benchmark, folder=root / ".." / "elsewhere")


@pytest.mark.django_db
def test_a_file_linking_out_of_the_folder_is_not_read(root, benchmark, tmp_path):
    folder = _audio_folder(root / "vb", benchmark)
    first = sorted((folder / "sd-qa").iterdir())[0]
    first.unlink()
    secret = tmp_path / "secret.wav"
    write_wav(secret, seconds=0.1)
    os.symlink(secret, first)

    result = import_audio_folder(benchmark=benchmark, folder=folder)

    assert result.linked == 1 and len(result.without_audio) == 1
    assert AudioAsset.objects.count() == 1  # the secret's content was not stored


@pytest.mark.django_db
def test_a_file_that_is_not_audio_refuses_the_whole_import(root, benchmark):
    folder = _audio_folder(root / "vb", benchmark)
    sorted((folder / "sd-qa").iterdir())[0].write_bytes(b"<html><script>alert(1)</script></html>")

    with pytest.raises(ApplicationError) as refused:
        import_audio_folder(benchmark=benchmark, folder=folder)

    assert "sd-qa/" in "\n".join(refused.value.lines())
    assert not AudioAsset.objects.exists()
    assert not SourceSample.objects.filter(audio__isnull=False).exists()


@pytest.mark.django_db
def test_an_admin_uploads_the_audio_as_a_zip_on_the_source_benchmarks_page(root, benchmark, client, admin, tmp_path):
    client.force_login(admin)
    upload = _zip_of(_audio_folder(tmp_path / "upload", benchmark))
    upload.name = "voicebench-audio.zip"

    answer = client.post("/transfer/import/audio/", {"benchmark": "voicebench", "file": upload}, follow=True)

    assert answer.status_code == 200 and "audio for 2 samples" in answer.content.decode()
    assert SourceSample.objects.filter(benchmark=benchmark, audio__isnull=False).count() == 2


@pytest.mark.django_db
def test_a_zip_escaping_its_folder_is_refused(root, benchmark):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../../sd-qa/x.wav", b"RIFF")
    buffer.seek(0)
    with pytest.raises(ApplicationError):
        import_audio_zip(benchmark=benchmark, source=buffer, name="evil.zip")
    assert not AudioAsset.objects.exists()


@pytest.mark.django_db
def test_the_commands_import_a_subset_with_its_audio_or_refuse_a_folder_outside(root, tmp_path, capsys):
    subset = tmp_path / "mmsu.jsonl"
    subset.write_text(json.dumps({"id": "m1", "prompt": "Which is a mammal? A. shark B. whale", "reference": "B"}))
    folder = root / "mmsu-audio" / "mmsu"
    folder.mkdir(parents=True)
    write_wav(folder / "m1.wav", seconds=0.1)

    with pytest.raises(CommandError, match="not under an import root"):
        call_command("import_benchmark", str(subset), format="voicebench", subset="mmsu", audio_dir="/etc")
    assert not SourceSample.objects.exists()  # the subset and its audio are one import

    call_command("import_benchmark", str(subset), format="voicebench", subset="mmsu", audio_dir=str(root / "mmsu-audio"))

    assert SourceSample.objects.get(source_id="m1").audio is not None
    with pytest.raises(CommandError, match="not under an import root"):
        call_command("import_source_audio", "/proc/self", benchmark="voicebench")
