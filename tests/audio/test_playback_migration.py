"""Migration audio 0004 copies both old records of "played to the end" into AudioPlayback, one row per (audio,
person): listening's PlaybackEnd (per clip) and authoring's ClipPlayback (per clip) of the same audio and
person merge, the first end the earliest, the last end the latest, the plays summed."""

from datetime import UTC, datetime, timedelta

import pytest

from tests.migrating import migrate, migrate_to_latest

BEFORE = [("audio", "0003_audio_playback"), ("listening", "0005_backfill_clips_expected"), ("authoring", "0001_initial")]
AFTER = [("audio", "0004_copy_playbacks")]
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.mark.django_db(transaction=True)
def test_both_old_records_become_one_row_per_audio_and_person():
    old = migrate(BEFORE)
    try:
        User = old.get_model("accounts", "User")
        Asset = old.get_model("audio", "AudioAsset")
        ana, ben = (User.objects.create(username=name) for name in ("ana", "ben"))
        shared, own = (Asset.objects.create(file=f"audio/{c}.wav", sha256=c * 64, format="wav", duration_seconds=1.0,
                                            sample_rate=16000, channels=1, size_bytes=32044) for c in "ab")
        pool = old.get_model("queues", "WorkPool").objects.create(name="p", kind="listening", required_per_item=5,
                                                                  lease_seconds=900)
        test = old.get_model("listening", "ListeningTest").objects.create(name="t", pool=pool, clips_expected=2)
        Item, ListeningClip = old.get_model("queues", "WorkItem"), old.get_model("listening", "Clip")
        heard = [ListeningClip.objects.create(test=test, work_item=Item.objects.create(pool=pool, order_key=i),
                                              clip_id=f"c{i}", asset=shared, audio_name="a.wav", text="t")
                 for i in range(2)]  # the same audio twice in one test
        PlaybackEnd = old.get_model("listening", "PlaybackEnd")
        for clip, minutes, plays in ((heard[0], 5, 2), (heard[1], 1, 1)):
            row = PlaybackEnd.objects.create(clip=clip, listener=ana, plays=plays)
            PlaybackEnd.objects.filter(pk=row.pk).update(first_reported_at=T0 + timedelta(minutes=minutes))
        corpus = old.get_model("authoring", "Corpus").objects.create(name="kss", format="kss", license="x", source="s")
        AuthoringClip = old.get_model("authoring", "Clip")
        ClipPlayback = old.get_model("authoring", "ClipPlayback")
        for n, (audio, who, minutes, plays) in enumerate(((shared, ana, 9, 3), (own, ben, 2, 1))):
            clip = AuthoringClip.objects.create(corpus=corpus, utterance_id=f"u{n}", audio=audio, raw_transcript="r",
                                                transcript="t", clean_transcript="t", source_file="f", source_line=n)
            row = ClipPlayback.objects.create(clip=clip, listener=who, plays=plays)
            ClipPlayback.objects.filter(pk=row.pk).update(first_ended_at=T0 + timedelta(minutes=minutes))
    finally:
        new = migrate(AFTER)
    rows = new.get_model("audio", "AudioPlayback").objects.values_list(
        "asset_id", "user_id", "first_ended_at", "last_ended_at", "plays")
    assert sorted(rows) == sorted([
        (shared.pk, ana.pk, T0 + timedelta(minutes=1), T0 + timedelta(minutes=9), 6),
        (own.pk, ben.pk, T0 + timedelta(minutes=2), T0 + timedelta(minutes=2), 1),
    ])
    migrate_to_latest()
