"""Ground-truth questions point at their correction with a foreign key instead of the string
"transfer.correction:<pk>". Existing links are converted; a correction already sent to an expert that no page
had pulled into the inbox yet gets its question here, as transfer now pushes every new one. (0006 drops the
string; apart, because PostgreSQL alters no table with the rows' deferred checks still pending.)"""

import django.db.models.deletion
from django.db import migrations, models

PREFIX = "transfer.correction:"


def _change(correction) -> str:
    # As apps.transfer.services.describe_change words it (frozen here, as migrations are).
    if correction.kind == "new_answer":
        return f"replace the answer with {correction.proposed_answer!r}"
    if correction.kind == "add_aliases":
        return "also accept " + ", ".join(repr(a) for a in correction.proposed_aliases)
    return "mark the question unanswerable as written (exclude the sample)"


def link_corrections(apps, schema_editor):
    DecisionQuestion = apps.get_model("consultations", "DecisionQuestion")
    QuestionOption = apps.get_model("consultations", "QuestionOption")
    Correction = apps.get_model("transfer", "Correction")
    for question in DecisionQuestion.objects.filter(ground_truth_ref__startswith=PREFIX):
        pk = int(question.ground_truth_ref.removeprefix(PREFIX))
        if Correction.objects.filter(pk=pk).exists():
            DecisionQuestion.objects.filter(pk=question.pk).update(correction_id=pk)
    unasked = Correction.objects.filter(status="needs_expert", expert_question__isnull=True).select_related(
        "sample__benchmark").order_by("created_at", "pk")
    number = DecisionQuestion.objects.filter(round=None).count()
    for correction in unasked:
        sample, number = correction.sample, number + 1
        original = sample.answer + (f" (aliases: {', '.join(sample.aliases)})" if sample.aliases else "")
        question = DecisionQuestion.objects.create(
            round=None, number=number, origin="ground_truth", correction=correction,
            title=f"Ground truth of {sample.benchmark.name}/{sample.subset} {sample.source_id}: {_change(correction)}?"[:300],
            decision_needed=(
                f"The reviewer agent proposes to {_change(correction)}. Its reason: {correction.reviewer_rationale}\n"
                f"The meta-reviewer ({correction.get_meta_verdict_display() or 'no verdict'}) did not confirm it: "
                f"{correction.meta_rationale or '(no reason given)'}\n"
                f"The imported answer is: {original or '(empty)'}. Does the correction follow from the question as written?"
            ),
        )
        QuestionOption.objects.bulk_create([
            QuestionOption(question=question, key="A", label="Apply the correction",
                           effect="The sample's effective answer becomes the corrected one (the imported answer is kept on record)."),
            QuestionOption(question=question, key="B", label="Reject the correction",
                           effect="The correction is rejected and the sample is excluded from the transfer."),
        ])
        question.affected_samples.set([sample])
        question.example_samples.set([sample])


def unlink_corrections(apps, schema_editor):
    DecisionQuestion = apps.get_model("consultations", "DecisionQuestion")
    for question in DecisionQuestion.objects.exclude(correction=None):
        DecisionQuestion.objects.filter(pk=question.pk).update(ground_truth_ref=f"{PREFIX}{question.correction_id}")


class Migration(migrations.Migration):

    dependencies = [
        ('consultations', '0004_agent_call_links'),
        ('transfer', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='decisionquestion',
            name='correction',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='expert_question', to='transfer.correction'),
        ),
        migrations.RunPython(link_corrections, unlink_corrections),
    ]
