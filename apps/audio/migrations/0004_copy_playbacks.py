"""Copy the two old records of "played to the end" (listening.PlaybackEnd per clip, authoring.ClipPlayback per
clip) into AudioPlayback, one row per (audio, person): the first end is the earliest either recorded, the
last end the latest first end they recorded (they kept no later one), the plays their sum. The old tables
are dropped by listening 0006 and authoring 0002, which run after this."""

from django.db import migrations
from django.db.models import F, Max, Min, Sum

BATCH = 5000


def copy_playbacks(apps, schema_editor):
    merged: dict[tuple[int, int], list] = {}
    sources = [
        (apps.get_model("listening", "PlaybackEnd"), "clip__asset_id", "first_reported_at"),
        (apps.get_model("authoring", "ClipPlayback"), "clip__audio_id", "first_ended_at"),
    ]
    for model, asset, ended in sources:
        per_audio = (model.objects.values(asset_id=F(asset), user_id=F("listener_id"))
                     .annotate(first=Min(ended), latest=Max(ended), plays=Sum("plays"))
                     .values_list("asset_id", "user_id", "first", "latest", "plays"))
        for asset_id, user_id, first, latest, plays in per_audio:
            known = merged.get((asset_id, user_id))
            if known is None:
                merged[(asset_id, user_id)] = [first, latest, plays]
            else:
                known[:] = [min(known[0], first), max(known[1], latest), known[2] + plays]
    AudioPlayback = apps.get_model("audio", "AudioPlayback")
    AudioPlayback.objects.bulk_create(
        [AudioPlayback(asset_id=a, user_id=u, first_ended_at=first, last_ended_at=last, plays=plays)
         for (a, u), (first, last, plays) in merged.items()],
        batch_size=BATCH,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("audio", "0003_audio_playback"),
        ("listening", "0005_backfill_clips_expected"),
        ("authoring", "0001_initial"),
    ]

    operations = [migrations.RunPython(copy_playbacks, migrations.RunPython.noop)]
