"""Tests imported before clips_expected existed (0003) have 0 there: give them their number of clips, which
the rating response's progress now reads instead of counting the clips on every rating."""

from django.db import migrations
from django.db.models import Count


def backfill(apps, schema_editor):
    ListeningTest = apps.get_model("listening", "ListeningTest")
    for test in ListeningTest.objects.filter(clips_expected=0).annotate(n=Count("clips")).filter(n__gt=0):
        ListeningTest.objects.filter(pk=test.pk).update(clips_expected=test.n)


class Migration(migrations.Migration):
    dependencies = [("listening", "0004_listener_pseudonyms_move_to_accounts")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
