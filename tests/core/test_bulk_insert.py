"""apps.core.bulk.insert_rows: rows go in whole (defaults, ids drawn from the table's sequence), come back in
their order, are refused by the table's constraints as Django's IntegrityError, and count as one statement
per batch where Django logs queries."""

import uuid

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from apps.audio.models import AudioAsset
from apps.core import bulk
from apps.core.bulk import insert_rows

pytestmark = pytest.mark.django_db

COLUMNS = ("file", "sha256", "original_name", "format", "duration_seconds", "sample_rate", "channels", "size_bytes")


def asset_row(k: int, *, name: str = "") -> tuple:
    digest = f"{k:064x}"
    return (f"audio/{digest[:2]}/{digest}.wav", digest, name or f"clip {k}.wav", "wav", 1.5 + k, 16000, 1, 48_000 + k)


def test_the_ids_it_returns_name_the_rows_given_in_their_order_with_their_defaults(monkeypatch):
    monkeypatch.setattr(bulk, "BATCH_ROWS", 3)  # two batches and a part: ids drawn per batch
    rows = [asset_row(k, name=f"ß,\t\"quoted\"\\ line {k}\n") for k in range(7)]
    before = AudioAsset.objects.count()
    answer = insert_rows(AudioAsset, COLUMNS, rows, returning=("id", "sha256"))
    assert [digest for _, digest in answer] == [row[1] for row in rows]
    assert len({pk for pk, _ in answer}) == 7 and AudioAsset.objects.count() == before + 7
    for (pk, _), row in zip(answer, rows, strict=True):
        asset = AudioAsset.objects.get(pk=pk)
        assert (asset.file.name, asset.sha256, asset.original_name, asset.duration_seconds, asset.size_bytes) == (
            row[0], row[1], row[2], row[4], row[7])
        assert isinstance(asset.public_id, uuid.UUID) and asset.created_at is not None and asset.converted_from_id is None
    assert len({AudioAsset.objects.get(pk=pk).public_id for pk, _ in answer}) == 7  # a default drawn per row
    # The table's own sequence moved past them: the ORM's next insert takes a fresh id.
    later = AudioAsset.objects.create(**dict(zip(COLUMNS, asset_row(100), strict=True)))
    assert later.pk > max(pk for pk, _ in answer)


def test_a_row_a_constraint_refuses_raises_djangos_integrity_error_and_inserts_nothing():
    insert_rows(AudioAsset, COLUMNS, [asset_row(1)])
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_rows(AudioAsset, COLUMNS, [asset_row(2), asset_row(1)])  # sha256 is unique
    assert list(AudioAsset.objects.values_list("sha256", flat=True)) == [asset_row(1)[1]]


def test_a_batch_counts_as_one_statement(monkeypatch):
    monkeypatch.setattr(bulk, "BATCH_ROWS", 4)
    with CaptureQueriesContext(connection) as queries:
        insert_rows(AudioAsset, COLUMNS, [asset_row(k) for k in range(10)])
    writes = [q["sql"] for q in queries.captured_queries if "audio_audioasset" in q["sql"]]
    assert len(writes) == 3 and AudioAsset.objects.count() == 10


def test_a_column_it_cannot_return_is_refused_before_anything_is_written():
    with pytest.raises(ValueError, match="public_id"):
        insert_rows(AudioAsset, COLUMNS, [asset_row(1)], returning=("public_id",))
    assert not AudioAsset.objects.exists()
