"""A database migrated before the source benchmarks moved to apps.sources migrates forward with its rows where they
were: the new migrations only change Django's state (the tables keep transfer's names), and every foreign key into
them, from transfer, consultations and evaluation, still reaches the same rows."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.migrating import migrate, migrate_to_latest

# The last migrations before the move (what a deployed database has applied), and no sources migration.
BEFORE = [("transfer", "0005_source_sample_audio"), ("consultations", "0007_rule_data"),
          ("speech", "0002_attempt_context_readings"), ("evaluation", "0005_model_key_env")]
MOVE = [("sources", "0001_initial"), ("transfer", "0006_sources_moved_out")]


def _tables() -> set[str]:
    return set(connection.introspection.table_names())


@pytest.mark.django_db(transaction=True)
def test_rows_imported_before_the_move_are_the_source_apps_rows_after_it():
    # A target in transfer unapplies only transfer's later migrations: take sources back to zero first.
    MigrationExecutor(connection).migrate([("sources", None)])
    old = migrate(BEFORE)
    try:
        tables_before = _tables()
        Benchmark, Sample = old.get_model("transfer", "SourceBenchmark"), old.get_model("transfer", "SourceSample")
        bench = Benchmark.objects.create(name="voicebench", format="voicebench")
        sample = Sample.objects.create(benchmark=bench, subset="sd-qa-usa", task_type="short_answer", source_id="q1",
                                       transcription="What is the capital of Peru?", answer="Lima", raw={"prompt": "x"},
                                       line_number=1)
        run = old.get_model("transfer", "ReviewRun").objects.create(benchmark=bench)
        old.get_model("transfer", "GroundTruthReview").objects.create(sample=sample, run=run, outcome="answer_confirmed")
        question = old.get_model("consultations", "DecisionQuestion").objects.create(
            round=None, number=1, origin="ground_truth", title="t", decision_needed="d")
        question.affected_samples.add(sample)
        model = old.get_model("evaluation", "EvaluatedModel").objects.create(name="Qwen2.5-Omni")
        old.get_model("evaluation", "EvaluationRun").objects.create(
            model=model, source_benchmark=bench, benchmark_name="voicebench", family="spoken-qa", language="en")
        ContentType = old.get_model("contenttypes", "ContentType")
        content_type = ContentType.objects.get_or_create(app_label="transfer", model="sourcesample")[0]
    finally:
        new = migrate(MOVE)
    try:
        assert _tables() == tables_before  # no table made, dropped or renamed
        Sample = new.get_model("sources", "SourceSample")
        moved = Sample.objects.select_related("benchmark").get(pk=sample.pk)
        assert (moved.benchmark.name, moved.subset, moved.answer, moved.raw) == ("voicebench", "sd-qa-usa", "Lima", {"prompt": "x"})
        assert Sample._meta.db_table == "transfer_sourcesample"
        assert new.get_model("transfer", "GroundTruthReview").objects.get(sample=moved).run.benchmark_id == bench.pk
        assert list(new.get_model("consultations", "DecisionQuestion").objects.get(pk=question.pk)
                    .affected_samples.values_list("source_id", flat=True)) == ["q1"]
        assert new.get_model("evaluation", "EvaluationRun").objects.get(model_id=model.pk).source_benchmark.name == "voicebench"
        # The admin's history and permissions follow the model.
        assert new.get_model("contenttypes", "ContentType").objects.get(pk=content_type.pk).app_label == "sources"
        with pytest.raises(LookupError):
            new.get_model("transfer", "SourceSample")
    finally:
        migrate_to_latest()
