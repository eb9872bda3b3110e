"""Importing a listening test from a manifest: atomic, and every bad row named by its line."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.audio.models import AudioAsset
from apps.core.errors import Conflict, FileRefused
from apps.listening.models import Clip, ListeningTest
from apps.listening.services import import_listening_test
from apps.queues.models import WorkItem

from .conftest import clip_rows

pytestmark = pytest.mark.django_db


def test_it_imports_clips_and_gold_clips_into_a_pool_of_five(write_manifest):
    path = write_manifest(clip_rows(4, gold=1))
    test = import_listening_test(name="KOMOS pilot", manifest=path)
    assert test.pool.required_per_item == 5
    assert test.clips.regular().count() == 4
    gold = test.clips.gold().get()
    assert (gold.gold_min, gold.gold_max) == (4, 5)
    assert gold.work_item.capacity == WorkItem.UNLIMITED
    assert all(c.work_item.capacity is None for c in test.clips.regular())
    clip = test.clips.get(clip_id="c000")
    assert clip.source_type == "real" and clip.style == "read" and clip.audio_name == "c000.wav"


def test_a_plain_file_name_that_is_a_link_is_followed_and_must_stay_inside_the_manifests_folder(write_manifest, make_wav):
    """A plain name of a regular file is taken as it is (one lstat); a plain name that is a link is resolved
    first, so a link out of the folder is refused like "../" and a link inside it is fine."""
    path = write_manifest(clip_rows(3))
    folder = path.parent
    (folder / "c001.wav").unlink()
    (folder / "c001.wav").symlink_to(make_wav("elsewhere/secret.wav", freq=500))
    (folder / "c002.wav").unlink()
    (folder / "c002.wav").symlink_to(folder / "c000.wav")
    with pytest.raises(FileRefused) as refused:
        import_listening_test(name="linked", manifest=path)
    assert refused.value.lines() == ["manifest.csv line 3: audio: audio path 'c001.wav' must stay inside the manifest's folder"]
    assert not ListeningTest.objects.exists()

    (folder / "c001.wav").unlink()
    make_wav("bundle/c001.wav", freq=600)
    test = import_listening_test(name="linked", manifest=path)
    assert test.clips.get(clip_id="c002").asset == test.clips.get(clip_id="c000").asset


@pytest.mark.postgres
def test_a_finished_import_leaves_the_planner_statistics_of_its_clips_and_items(write_manifest):
    # So the first listeners' claims and progress are planned from the real sizes, not empty-table guesses.
    from django.db import connection

    test = import_listening_test(name="analyzed", manifest=write_manifest(clip_rows(12)))
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reltuples FROM pg_class WHERE relname IN ('listening_clip', 'queues_workitem')")
        estimated = dict(cursor.fetchall())
    assert estimated == {"listening_clip": Clip.objects.count(), "queues_workitem": WorkItem.objects.count()}
    assert test.clips_expected == 12


def test_it_reads_jsonl_too(write_manifest):
    path = write_manifest(clip_rows(3), name="m.jsonl")
    test = import_listening_test(name="jsonl", manifest=path)
    assert test.clips.count() == 3


def test_import_errors_name_the_row_and_nothing_is_stored(write_manifest, bundle_dir, settings):
    rows = clip_rows(6)
    rows[1]["audio"] = "missing.wav"  # line 3
    rows[2]["source_type"] = "vocoded"  # line 4
    rows[4]["clip_id"] = rows[3]["clip_id"]  # line 6 duplicates line 5
    path = write_manifest(rows)
    (bundle_dir / "missing.wav").unlink(missing_ok=True)
    (bundle_dir / rows[5]["audio"]).write_bytes(b"RIFF\x00\x00not really audio")  # line 7
    with pytest.raises(FileRefused) as refused:
        import_listening_test(name="broken", manifest=path)
    errors = refused.value.lines()
    assert errors[:3] == [
        "manifest.csv line 3: audio: missing audio file missing.wav",
        "manifest.csv line 4: source_type: unknown source type 'vocoded' (expected real, tts, degraded)",
        "manifest.csv line 6: clip_id: 'c003' repeats line 5",
    ]
    assert errors[3].startswith("manifest.csv line 7: audio: invalid audio")
    assert len(errors) == 4
    assert not ListeningTest.objects.exists() and not Clip.objects.exists() and not AudioAsset.objects.exists()


def test_a_failure_while_storing_leaves_no_files_behind(write_manifest, monkeypatch, settings):
    from apps.listening import services

    path = write_manifest(clip_rows(3))
    real = services.store_validated

    def flaky(*args, **kwargs):
        real(*args, **kwargs)  # the audio files are written to storage...
        assert any(p.is_file() for p in settings.MEDIA_ROOT.rglob("*"))
        raise RuntimeError("disk full")  # ...and then the import fails

    monkeypatch.setattr(services, "store_validated", flaky)
    with pytest.raises(RuntimeError):
        import_listening_test(name="half", manifest=path)
    assert not AudioAsset.objects.exists() and not ListeningTest.objects.exists()
    media = settings.MEDIA_ROOT
    assert not any(p.is_file() for p in media.rglob("*")) if media.exists() else True


def test_gold_bounds_must_come_in_pairs_within_the_scale(write_manifest):
    rows = clip_rows(2)
    rows[0]["gold_min"] = 4
    rows[1]["gold_min"], rows[1]["gold_max"] = 5, 7
    with pytest.raises(FileRefused) as refused:
        import_listening_test(name="g", manifest=write_manifest(rows))
    assert refused.value.lines() == [
        "manifest.csv line 2: gold_min and gold_max go together: give both or neither",
        "manifest.csv line 3: gold_max: '7' must be a whole score from 1 to 5",
    ]


def test_the_command_prints_the_new_tests_id_and_names_bad_rows(write_manifest, capsys):
    path = write_manifest(clip_rows(2))
    call_command("import_listening_test", "--name", "cmd", "--manifest", str(path))
    assert capsys.readouterr().out.strip() == str(ListeningTest.objects.get(name="cmd").pk)
    rows = clip_rows(2, prefix="x")
    rows[1]["style"] = "sung"
    bad = write_manifest(rows, name="bad.csv")
    with pytest.raises(CommandError, match=r"bad.csv line 3: style: unknown style 'sung'"):
        call_command("import_listening_test", "--name", "cmd2", "--manifest", str(bad))


def test_a_second_test_with_the_same_name_is_refused(write_manifest):
    path = write_manifest(clip_rows(2))
    import_listening_test(name="same", manifest=path)
    with pytest.raises(Conflict, match="already exists"):
        import_listening_test(name="same", manifest=path)


def test_rows_that_share_a_file_have_it_validated_and_stored_once(write_manifest, monkeypatch):
    from apps.audio import inspection as audio

    rows = clip_rows(6)
    for row in rows[1:4]:
        row["audio"] = rows[0]["audio"]  # four conditions of one recording
    path = write_manifest(rows)
    real, checked = audio.inspect_audio, []

    def counting(file, **kwargs):
        checked.append(file.name)
        return real(file, **kwargs)

    monkeypatch.setattr(audio, "inspect_audio", counting)
    test = import_listening_test(name="shared", manifest=path)
    assert sorted(checked) == sorted({r["audio"] for r in rows})
    assert test.clips.count() == 6 and AudioAsset.objects.count() == 3
    assert len({c.asset_id for c in test.clips.filter(clip_id__in=[r["clip_id"] for r in rows[:4]])}) == 1


def test_wav_clips_are_validated_from_their_headers_without_decoding(write_manifest, monkeypatch):
    from apps.audio import ffmpeg, pcm

    def no_decoding(*args, **kwargs):
        raise AssertionError("a PCM WAV should not need ffprobe or a decode")

    monkeypatch.setattr(ffmpeg, "probe", no_decoding)
    monkeypatch.setattr(pcm, "decoded_shape", no_decoding)
    test = import_listening_test(name="headers", manifest=write_manifest(clip_rows(3), seconds=0.75))
    durations = {c.asset.duration_seconds for c in test.clips.select_related("asset")}
    assert durations == {0.75}


def test_an_import_takes_the_same_queries_for_ten_clips_as_for_sixty(write_manifest, tmp_path, monkeypatch):
    """Issue 23: the audio is stored in one pass and the clips in one statement (a COPY), so the number of queries does
    not grow with the clips (it grew by six or so per twenty clips, and a lock query per file). Batches are
    for a job's resumable import: the one-transaction import stores its clips at once, whatever their size."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.listening import services

    monkeypatch.setattr(services, "IMPORT_BATCH", 5)
    counts = []
    for n, name in ((10, "ten"), (60, "sixty")):
        path = write_manifest(clip_rows(n, gold=2, prefix=name), name=f"{name}.csv")
        with CaptureQueriesContext(connection) as queries:
            test = import_listening_test(name=name, manifest=path)
        assert test.clips.count() == n + 2
        counts.append(len(queries))
        clip_inserts = [q["sql"] for q in queries.captured_queries if q["sql"].startswith(('COPY "listening_clip"', 'INSERT INTO "listening_clip"'))]
        assert len(clip_inserts) == 1
    assert counts[0] == counts[1]


def _files_under(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file())


def test_an_import_stores_each_file_from_the_bytes_it_checked_without_copying_it_again(write_manifest, monkeypatch, settings):
    """The one-transaction import stages each WAV as it checks it (audio.Staging): storing it is a rename,
    and what is stored is whole, under its content's name, with no `.part` file left over."""
    from pathlib import Path

    from apps.audio import store as audio
    from apps.audio.selectors import stored_file_problem

    def no_copy(*args, **kwargs):
        raise AssertionError("a staged file was copied again")

    monkeypatch.setattr(audio, "_copy_checked", no_copy)
    rows = clip_rows(6)
    rows[5]["audio"] = rows[4]["audio"]  # one file named by two rows
    test = import_listening_test(name="staged", manifest=write_manifest(rows))
    assets = AudioAsset.objects.filter(listening_clips__test=test).distinct()
    assert assets.count() == 5
    assert all(stored_file_problem(a.file.name, size_bytes=a.size_bytes, sha256=a.sha256) is None for a in assets)
    assert _files_under(Path(settings.MEDIA_ROOT) / "audio") == sorted(f"{a.sha256}.wav" for a in assets)


def test_an_import_shared_with_the_checker_process_stores_its_files_without_copying_them_again(write_manifest, monkeypatch, settings):
    """The files the checker process (audio.wavcheck) checked and staged are stored by a rename too."""
    from pathlib import Path

    from apps.audio import store as audio
    from apps.audio.selectors import stored_file_problem
    from tests.audio_looks import share_with_checker

    looked = share_with_checker(monkeypatch)
    monkeypatch.setattr(audio, "_copy_checked", lambda *args, **kwargs: pytest.fail("a staged file was copied again"))
    test = import_listening_test(name="shared", manifest=write_manifest(clip_rows(8)))
    assert len(looked) < 8  # the checker took some
    assets = AudioAsset.objects.filter(listening_clips__test=test).distinct()
    assert assets.count() == 8
    assert all(stored_file_problem(a.file.name, size_bytes=a.size_bytes, sha256=a.sha256) is None for a in assets)
    assert _files_under(Path(settings.MEDIA_ROOT) / "audio") == sorted(f"{a.sha256}.wav" for a in assets)


def test_a_refused_manifest_or_audio_stored_before_leaves_nothing_staged(write_manifest, settings):
    from pathlib import Path

    audio = Path(settings.MEDIA_ROOT) / "audio"
    rows = clip_rows(3)
    rows[2]["style"] = "sung"
    with pytest.raises(FileRefused):
        import_listening_test(name="refused", manifest=write_manifest(rows))
    assert _files_under(audio) == []

    rows[2]["style"] = "read"
    import_listening_test(name="first", manifest=write_manifest(rows))
    stored = _files_under(audio)
    import_listening_test(name="second", manifest=write_manifest(rows))  # the same files: found, not staged twice
    assert _files_under(audio) == stored and len(stored) == 3
