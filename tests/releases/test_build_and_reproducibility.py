import hashlib
import io
import zipfile

import pytest
from django.core.files.storage import default_storage

from apps.releases.models import Release
from apps.releases.writing import files_under, verify_folder


def _hashes(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files_under(folder)}


@pytest.mark.django_db
def test_a_mos_release_has_the_hugging_face_layout_and_lists_every_file(rated_test, build, extracted):
    release = build("mos", rated_test, name="komos")
    folder = extracted(release)
    files = set(_hashes(folder))
    assert {"README.md", "SHA256SUMS", "provenance.jsonl", "release.json", "listener_ratings.csv",
            "data/clips.parquet", "data/clips.jsonl", "data/ratings.parquet", "data/ratings.jsonl"} <= files
    assert len([f for f in files if f.startswith("audio/")]) == 6  # the gold clip stays out
    assert verify_folder(folder) == []
    assert {f.path for f in release.files.all()} == files - {"SHA256SUMS"}
    assert release.item_count == 6 and release.items.count() == 6
    assert release.manifest["excluded"]["gold0"] == "gold (quality-control) clip"
    bvcc = (folder / "listener_ratings.csv").read_text().splitlines()
    assert len(bvcc) == 30 and bvcc[0].count(",") == 4 and "_na_L" in bvcc[0]


@pytest.mark.django_db
def test_building_the_same_release_again_gives_the_same_bytes(rated_test, settled_project, benchmark, build, extracted):
    for kind, source in (("mos", rated_test), ("hpsu", settled_project), ("spoken-qa", benchmark)):
        first = build(kind, source, name=f"{kind}-set")
        before, archive = _hashes(extracted(first)), first.archive_sha256
        with default_storage.open(first.archive, "rb") as fh:
            names = zipfile.ZipFile(fh).namelist()
        Release.objects.filter(pk=first.pk).delete()  # not published: a rebuild may take its name and version

        second = build(kind, source, name=f"{kind}-set")
        assert _hashes(extracted(second)) == before, kind
        assert second.archive_sha256 == archive, kind
        assert names == sorted(names)
        with default_storage.open(second.archive, "rb") as fh:
            infos = zipfile.ZipFile(fh).infolist()
        assert {(i.date_time, i.external_attr >> 16) for i in infos} == {((1980, 1, 1, 0, 0, 0), 0o100644)}


@pytest.mark.django_db
def test_rows_are_sorted_by_id_and_text_is_nfc(benchmark, build, extracted):
    import json
    import unicodedata

    folder = extracted(build("spoken-qa", benchmark, name="kvb"))
    rows = [json.loads(line) for line in (folder / "data/sd-qa.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    korean = next(r for r in rows if "서울" in r["answer"])
    assert korean["transcription"] == unicodedata.normalize("NFC", "한국의 수도는?")
    assert (folder / "data/sd-qa.jsonl").read_bytes().count(b"\r") == 0


@pytest.mark.django_db
def test_a_rebuild_after_the_secret_key_changed_names_people_the_same(settled_project, build, extracted, settings):
    first = build("hpsu", settled_project, name="hpsu-set")
    before = _hashes(extracted(first))
    Release.objects.filter(pk=first.pk).delete()
    settings.SECRET_KEY = "rotated-" + settings.SECRET_KEY
    assert _hashes(extracted(build("hpsu", settled_project, name="hpsu-set"))) == before


@pytest.mark.django_db
def test_verify_release_rebuild_finds_a_published_release_reproducible_in_every_file(
        rated_test, settled_project, benchmark, build, admin):
    from django.core.management import call_command

    from apps.releases.services import publish_release

    for kind, source in (("mos", rated_test), ("hpsu", settled_project), ("spoken-qa", benchmark)):
        release = publish_release(release=build(kind, source, name=f"{kind}-pub"), acting_user=admin)
        out = io.StringIO()
        call_command("verify_release", "--rebuild", release.name, release.version, stdout=out)
        assert f"the rebuild gives the same bytes in all {release.files.count()} files" in out.getvalue(), kind


@pytest.mark.django_db
def test_verify_release_rebuild_names_the_files_a_changed_rating_would_change(rated_test, build):
    from django.core.management import CommandError, call_command

    from apps.listening.models import Rating

    build("mos", rated_test, name="komos-drift")
    rating = Rating.objects.filter(clip__test=rated_test, clip__gold_min__isnull=True).order_by("pk").first()
    Rating.objects.filter(pk=rating.pk).update(score=6 - rating.score)
    with pytest.raises(CommandError) as failed:
        call_command("verify_release", "--rebuild", "komos-drift", "1.0.0")
    message = str(failed.value)
    assert "does not rebuild to the same bytes" in message
    assert "data/ratings.parquet: the rebuild's bytes differ" in message
