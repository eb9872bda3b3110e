"""The run stores only its settled state (issue 35 §2): collecting and evaluating are read from its jobs. The
column keeps its name (`status`) under the field `state`, so no column moves. A row stored as collecting goes
back to waiting, one stored as evaluating to evaluated if it was evaluated before, else ready; if its job is
still unfinished, the run reads as collecting or evaluating all the same, and the job's end writes what
follows, as for a run started after this migration."""

from django.db import migrations, models

SETTLED = [("waiting", "Waiting for responses"), ("ready", "Responses complete (not scored)"),
           ("evaluated", "Evaluated"), ("needs_attention", "Needs attention")]


def settle(apps, schema_editor):
    EvaluationRun = apps.get_model("evaluation", "EvaluationRun")
    EvaluationRun.objects.filter(state="collecting").update(state="waiting")
    EvaluationRun.objects.filter(state="evaluating", evaluated_at__isnull=False).update(state="evaluated")
    EvaluationRun.objects.filter(state="evaluating").update(state="ready")


class Migration(migrations.Migration):

    dependencies = [
        ("evaluation", "0008_run_english_source_and_kind"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RenameField(model_name="evaluationrun", old_name="status", new_name="state"),
                migrations.AlterField(
                    model_name="evaluationrun", name="state",
                    field=models.CharField(choices=SETTLED, db_column="status", db_index=True, default="waiting",
                                           max_length=20),
                ),
            ],
        ),
        migrations.RunPython(settle, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="evaluationrun",
            constraint=models.CheckConstraint(condition=~models.Q(state__in=["collecting", "evaluating"]),
                                              name="evaluation_run_stores_a_settled_state"),
        ),
    ]
