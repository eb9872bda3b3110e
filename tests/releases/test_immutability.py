import pytest
from django.db import DatabaseError, connection, transaction

from apps.core.errors import Conflict
from apps.releases.models import ImmutableRelease, Release, ReleaseFile, ReleaseItem
from apps.releases.services import publish_release


@pytest.fixture
def published(rated_test, build, admin):
    return publish_release(release=build("mos", rated_test, name="komos"), acting_user=admin)


@pytest.mark.django_db
def test_the_models_refuse_to_change_or_delete_a_published_release_its_files_and_items(published):
    published.description = "rewritten"
    with pytest.raises(ImmutableRelease):
        published.save()
    with pytest.raises(ImmutableRelease):
        published.delete()
    item = published.items.first()
    item.row = {**item.row, "mos_mean": 5.0}
    with pytest.raises(ImmutableRelease):
        item.save()
    with pytest.raises(ImmutableRelease):
        published.files.first().delete()
    with pytest.raises(ImmutableRelease):
        ReleaseFile(release=published, path="extra.txt", sha256="0" * 64, size=1).save()


@pytest.mark.django_db
def test_the_database_refuses_what_bypasses_the_models(published):
    attempts = [
        lambda: Release.objects.filter(pk=published.pk).update(description="rewritten"),
        lambda: Release.objects.filter(pk=published.pk).update(status="built"),
        lambda: ReleaseItem.objects.filter(release=published).update(reason="changed"),
        lambda: ReleaseFile.objects.filter(release=published).delete(),
        lambda: ReleaseFile.objects.bulk_create([ReleaseFile(release=published, path="x", sha256="0" * 64, size=1)]),
    ]
    for attempt in attempts:
        with pytest.raises(DatabaseError), transaction.atomic():
            attempt()
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM releases_release WHERE id = %s", [published.pk])
    published.refresh_from_db()
    assert published.status == "published" and published.items.count() == 6 and published.files.exists()


@pytest.mark.django_db
def test_an_unpublished_release_can_be_rebuilt_and_a_published_one_only_gets_a_new_version(published, rated_test, build, admin):
    from apps.releases.services import create_release

    with pytest.raises(Conflict, match="new version"):
        create_release(acting_user=admin, kind="mos", source_id=rated_test.pk, name="komos", version="1.0.0",
                       license="CC-BY-4.0", sources=[{"name": "own", "license": "CC-BY-4.0"}])
    with pytest.raises(Conflict, match="published already"):
        publish_release(release=published, acting_user=admin)
    newer = build("mos", rated_test, name="komos", version="1.1.0")
    newer.description = "corrected"
    newer.save()  # not published yet: still editable
    assert publish_release(release=newer, acting_user=admin).is_published


@pytest.mark.django_db
def test_versions_must_increase(published, rated_test, admin):
    from apps.core.errors import InvalidInput
    from apps.releases.services import create_release

    for bad, reason in (("0.9.0", "greater than"), ("v2", "semantic"), ("2", "style")):
        with pytest.raises(InvalidInput, match=reason):
            create_release(acting_user=admin, kind="mos", source_id=rated_test.pk, name="komos", version=bad,
                           license="CC-BY-4.0", sources=[{"name": "own", "license": "CC-BY-4.0"}])


@pytest.mark.django_db
def test_publishing_refuses_an_archive_whose_bytes_changed_after_the_build(rated_test, build, admin):
    from django.core.files.storage import default_storage

    release = build("mos", rated_test, name="komos")
    with open(default_storage.path(release.archive), "ab") as fh:
        fh.write(b"tampered")
    with pytest.raises(Conflict, match="sha256 differs"):
        publish_release(release=release, acting_user=admin)
