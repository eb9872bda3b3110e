"""Annotator pseudonyms were derived on the fly (an HMAC of the project's pseudonym_key); they become rows of
the one scoped model (accounts.Pseudonym, scope "verification:<project id>"). Every annotator who has
reviewed in a project gets the value the old scheme gave them, so exports and rebuilt HPSU releases name them
as before; annotators who review later draw a random one of the same look. The key then goes.

Going back restores the column with fresh keys and drops the rows: the old scheme cannot give the same names
again once the keys are gone, so a rollback renames annotators (forward never does)."""

import hashlib
import hmac

from django.db import migrations


def _old_pseudonym(project, user_id: int) -> str:
    # VerificationProject.pseudonym as it was, so the values stay.
    digest = hmac.new(project.pseudonym_key.encode(), f"verification:{project.pk}:{user_id}".encode(), hashlib.sha256)
    return f"annotator-{digest.hexdigest()[:8]}"


def forward(apps, schema_editor):
    project_model = apps.get_model("verification", "VerificationProject")
    review = apps.get_model("verification", "Review")
    event = apps.get_model("verification", "ReviewEvent")
    new = apps.get_model("accounts", "Pseudonym")
    for project in project_model.objects.order_by("pk"):
        people = set(review.objects.filter(item__project=project).values_list("annotator_id", flat=True))
        people |= set(event.objects.filter(item__project=project).values_list("annotator_id", flat=True))
        new.objects.bulk_create(
            [new(scope=f"verification:{project.pk}", user_id=user_id, value=_old_pseudonym(project, user_id))
             for user_id in sorted(people)],
            batch_size=1000,
        )


def backward(apps, schema_editor):
    apps.get_model("accounts", "Pseudonym").objects.filter(scope__startswith="verification:").delete()


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_scoped_pseudonyms"),
        ("verification", "0002_pseudonym_key"),
    ]

    operations = [
        migrations.RunPython(forward, backward),
        migrations.RemoveField(model_name="verificationproject", name="pseudonym_key"),
    ]
