"""Listener pseudonyms move to the one scoped model (accounts.Pseudonym, scope "listening"), each keeping its
value: exports and MOS releases go on naming every listener as before."""

from django.db import migrations

SCOPE = "listening"


def forward(apps, schema_editor):
    old = apps.get_model("listening", "ListenerPseudonym")
    new = apps.get_model("accounts", "Pseudonym")
    new.objects.bulk_create(
        [new(scope=SCOPE, user_id=row.listener_id, value=row.pseudonym) for row in old.objects.order_by("pk")],
        batch_size=1000,
    )


def backward(apps, schema_editor):
    old = apps.get_model("listening", "ListenerPseudonym")
    new = apps.get_model("accounts", "Pseudonym")
    old.objects.bulk_create(
        [old(listener_id=row.user_id, pseudonym=row.value) for row in new.objects.filter(scope=SCOPE).order_by("pk")],
        batch_size=1000,
    )
    new.objects.filter(scope=SCOPE).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_scoped_pseudonyms"),
        ("listening", "0003_import_in_batches"),
    ]

    operations = [
        migrations.RunPython(forward, backward),
        migrations.DeleteModel(name="ListenerPseudonym"),
    ]
