"""Release pseudonyms move to the one scoped model (accounts.Pseudonym, scope "releases"), each keeping its
code: a rebuilt release names every expert and admin as the published one does."""

from django.db import migrations

SCOPE = "releases"


def forward(apps, schema_editor):
    old = apps.get_model("releases", "Pseudonym")
    new = apps.get_model("accounts", "Pseudonym")
    new.objects.bulk_create(
        [new(scope=SCOPE, user_id=row.user_id, value=row.code) for row in old.objects.order_by("pk")],
        batch_size=1000,
    )


def backward(apps, schema_editor):
    old = apps.get_model("releases", "Pseudonym")
    new = apps.get_model("accounts", "Pseudonym")
    old.objects.bulk_create(
        [old(user_id=row.user_id, code=row.value) for row in new.objects.filter(scope=SCOPE).order_by("pk")],
        batch_size=1000,
    )
    new.objects.filter(scope=SCOPE).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_scoped_pseudonyms"),
        ("releases", "0002_published_releases_are_immutable"),
    ]

    operations = [
        migrations.RunPython(forward, backward),
        migrations.DeleteModel(name="Pseudonym"),
    ]
