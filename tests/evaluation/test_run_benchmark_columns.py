"""A run stores what create_run knows of its benchmark: the English source benchmark of its items (a release's
too) and the benchmark's kind; migration 0008 fills both for the runs made before."""

import pytest

from apps.evaluation.services import create_run
from tests.evaluation.boards import release
from tests.migrating import migrate, migrate_to_latest

BEFORE = [("evaluation", "0007_item_metric_choices")]
AFTER = [("evaluation", "0008_run_english_source_and_kind")]


@pytest.mark.django_db
def test_a_run_on_a_source_benchmark_stores_it_and_its_kind(english_run, voicebench):
    assert (english_run.english_source, english_run.kind) == (voicebench, "voicebench")


@pytest.mark.django_db
def test_a_kmmau_run_is_of_kind_kmmau_without_an_english_source(admin, qwen):
    from apps.releases.models import ReleaseItem

    kmmau = release("kmmau", "kmmau", admin)
    ReleaseItem.objects.create(release=kmmau, item_id="age/1", config="age", split="test", content_sha256="0" * 64, row={
        "capability": "age", "question": "How old?", "answer": "20s", "choices": ["20s", "40s", "60s"]})

    run = create_run(model=qwen, release=kmmau, acting_user=admin)

    assert (run.english_source, run.kind) == (None, "kmmau")


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_them_for_existing_runs():
    old = migrate(BEFORE)
    try:
        Benchmark, Sample = old.get_model("sources", "SourceBenchmark"), old.get_model("sources", "SourceSample")
        Model, Run, Item = (old.get_model("evaluation", name) for name in ("EvaluatedModel", "EvaluationRun", "EvalItem"))
        Release = old.get_model("releases", "Release")
        builder = old.get_model("accounts", "User").objects.create(username="builder")
        oab = Benchmark.objects.create(name="openaudiobench", format="openaudiobench")
        sample = Sample.objects.create(benchmark=oab, subset="trivia_qa", task_type="short_answer", source_id="1",
                                       transcription="q", raw={}, line_number=1)
        model = Model.objects.create(name="m")
        english = Run.objects.create(model=model, source_benchmark=oab, benchmark_name="openaudiobench",
                                     family="spoken-qa", language="en")
        korean_release = Release.objects.create(name="kopenaudiobench", version="1", kind="spoken-qa", license="x", built_by=builder)
        korean = Run.objects.create(model=model, release=korean_release, benchmark_name="kopenaudiobench",
                                    family="spoken-qa", language="ko")
        Item.objects.create(run=korean, item_id="trivia_qa/1", subset="trivia_qa", metric="qa", question="q",
                            source_sample=sample)
        orphan_release = Release.objects.create(name="orphan", version="1", kind="spoken-qa", license="x", built_by=builder)
        orphan = Run.objects.create(model=model, release=orphan_release, benchmark_name="orphan", family="spoken-qa",
                                    language="ko")
        Item.objects.create(run=orphan, item_id="web_questions/1", subset="web_questions", metric="qa", question="q")
        kmmau_release = Release.objects.create(name="kmmau", version="1", kind="kmmau", license="x", built_by=builder)
        kmmau = Run.objects.create(model=model, release=kmmau_release, benchmark_name="kmmau", family="kmmau",
                                   language="ko")
    finally:
        new = migrate(AFTER)
    Run = new.get_model("evaluation", "EvaluationRun")
    stored = {r.pk: (r.english_source_id, r.kind) for r in Run.objects.all()}
    assert stored == {english.pk: (oab.pk, "openaudiobench"), korean.pk: (oab.pk, "openaudiobench"),
                      orphan.pk: (None, "openaudiobench"), kmmau.pk: (None, "kmmau")}
    migrate_to_latest()
