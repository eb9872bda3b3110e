"""Migration 0005 gives tests imported before clips_expected existed their number of clips (the rating
response's progress reads it)."""

import pytest

from tests.migrating import migrate, migrate_to_latest

BEFORE = [("listening", "0004_listener_pseudonyms_move_to_accounts")]
AFTER = [("listening", "0005_backfill_clips_expected")]


@pytest.mark.django_db(transaction=True)
def test_old_tests_get_their_number_of_clips_and_others_keep_theirs():
    old = migrate(BEFORE)
    try:
        Pool, Item = old.get_model("queues", "WorkPool"), old.get_model("queues", "WorkItem")
        Test, Clip = old.get_model("listening", "ListeningTest"), old.get_model("listening", "Clip")
        asset = old.get_model("audio", "AudioAsset").objects.create(
            file="audio/x.wav", sha256="0" * 64, format="wav", duration_seconds=1.0, sample_rate=16000, channels=1,
            size_bytes=32044)

        def make(name: str, clips: int, expected: int):
            pool = Pool.objects.create(name=name, kind="listening", required_per_item=5, lease_seconds=900)
            test = Test.objects.create(name=name, pool=pool, clips_expected=expected)
            for i in range(clips):
                item = Item.objects.create(pool=pool, order_key=i)
                Clip.objects.create(test=test, work_item=item, clip_id=f"{name}-{i}", asset=asset,
                                    audio_name="a.wav", text="t")
            return test.pk

        old_test, new_test, empty = make("old", 3, 0), make("new", 2, 2), make("empty", 0, 0)
    finally:
        new = migrate(AFTER)
    Test = new.get_model("listening", "ListeningTest")
    assert dict(Test.objects.values_list("pk", "clips_expected")) == {old_test: 3, new_test: 2, empty: 0}
    migrate_to_latest()
