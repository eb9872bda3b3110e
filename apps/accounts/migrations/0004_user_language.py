from django.db import migrations, models

PARTICIPANT_ROLES = ["listener", "annotator", "expert"]


def participants_read_korean(apps, schema_editor):
    """Existing participants (not admins) start in Korean, as new ones do; everyone else takes their browser's
    language at their next sign-in."""
    User = apps.get_model("accounts", "User")
    participants = User.objects.filter(groups__name__in=PARTICIPANT_ROLES, is_superuser=False)
    participants.exclude(groups__name="admin").update(language="ko")


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_scoped_pseudonyms"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="language",
            field=models.CharField(blank=True, choices=[("ko", "한국어"), ("en", "English")], db_default="", max_length=8, verbose_name="language"),
        ),
        migrations.RunPython(participants_read_korean, migrations.RunPython.noop),
    ]
