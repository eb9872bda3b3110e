"""Importing a model's responses: a CSV, JSONL or Parquet file with `id` and `response` is checked against the
run's items; a good file answers every item; a bad one is refused as a whole, every bad row named (unknown id,
repeated id, an item left without a response, a missing column), and nothing is written."""

import pytest

from apps.core.errors import Conflict, FileRefused
from apps.evaluation.models import EvalItem, ItemScore, RunStatus, SubsetScore
from apps.evaluation.responses import import_responses


def _answers(run):
    return {i.item_id: f"answer to {i.question}" for i in run.items.all()}


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["qwen.csv", "qwen.jsonl", "qwen.parquet"])
def test_a_good_file_answers_every_item(english_run, response_file, name):
    answers = _answers(english_run)
    path = response_file(name, [{"id": k, "response": v} for k, v in answers.items()])

    assert import_responses(run=english_run, source=path) == 5

    stored = {i.item_id: (i.response, i.response_meta["imported_from"]) for i in english_run.items.all()}
    assert stored == {k: (v, name) for k, v in answers.items()}
    english_run.refresh_from_db()
    assert english_run.status == RunStatus.READY and english_run.answer_source == "imported"


@pytest.mark.django_db
def test_it_refuses_a_file_naming_each_bad_row_and_writes_nothing(english_run, response_file):
    ids = sorted(_answers(english_run))
    rows = [{"id": ids[0], "response": "Canberra"},
            {"id": "sd-qa/not-an-item", "response": "?"},   # line 2: unknown id
            {"id": ids[0], "response": "again"},            # line 3: repeats line 1
            {"id": ids[1], "response": "Paris"}]
    path = response_file("bad.jsonl", rows)

    with pytest.raises(FileRefused) as refused:
        import_responses(run=english_run, source=path)

    lines = refused.value.lines()
    assert "bad.jsonl line 2: id: 'sd-qa/not-an-item' is not an item of voicebench" in lines
    assert f"bad.jsonl line 3: id: {ids[0]!r} repeats line 1" in lines
    for missing in ids[2:]:
        assert f"bad.jsonl: id: no response for item {missing!r}" in lines
    assert not EvalItem.objects.filter(run=english_run, response__isnull=False).exists()
    english_run.refresh_from_db()
    assert english_run.status == RunStatus.WAITING


@pytest.mark.django_db
def test_it_refuses_a_file_without_a_response_column(english_run, response_file):
    path = response_file("no-response.csv", [{"id": k, "answer": "x"} for k in _answers(english_run)])

    with pytest.raises(FileRefused) as refused:
        import_responses(run=english_run, source=path)

    assert "response" in str(refused.value)
    assert not EvalItem.objects.filter(run=english_run, response__isnull=False).exists()


@pytest.mark.django_db
def test_an_empty_response_is_an_answer_and_kept(english_run, response_file):
    rows = [{"id": k, "response": ""} for k in _answers(english_run)]
    import_responses(run=english_run, source=response_file("silent.jsonl", rows))

    assert set(EvalItem.objects.filter(run=english_run).values_list("response", flat=True)) == {""}


@pytest.mark.django_db
def test_importing_again_replaces_the_responses_and_drops_their_scores(english_run, response_file):
    answers = _answers(english_run)
    import_responses(run=english_run, source=response_file("a.jsonl", [{"id": k, "response": "one"} for k in answers]))
    item = english_run.items.first()
    ItemScore.objects.create(item=item, method="rule", score=1.0, evaluator="test", version="1")
    SubsetScore.objects.create(run=english_run, subset=item.subset, metric=item.metric, method="rule", score=100, n=1)

    import_responses(run=english_run, source=response_file("b.jsonl", [{"id": k, "response": "two"} for k in answers]))

    assert set(EvalItem.objects.filter(run=english_run).values_list("response", flat=True)) == {"two"}
    assert not ItemScore.objects.filter(item__run=english_run).exists()
    assert not SubsetScore.objects.filter(run=english_run).exists()


@pytest.mark.django_db
def test_it_refuses_an_import_while_the_run_is_being_evaluated(english_run, response_file, admin):
    from apps.evaluation.models import EvaluationRun
    from apps.jobs.models import Job

    job = Job.objects.create(kind="evaluation.evaluate", title="busy", status="running")
    EvaluationRun.objects.filter(pk=english_run.pk).update(evaluate_job=job)

    with pytest.raises(Conflict, match="evaluating"):
        import_responses(run=english_run, source=response_file("a.jsonl", [{"id": k, "response": "x"} for k in _answers(english_run)]))



@pytest.mark.django_db
def test_a_demo_model_given_imported_responses_no_longer_reads_as_demo_answers(voicebench, response_file, admin,
                                                                               client_for):
    """The label follows where the responses came from: the demo seeding's scripted file says demo answers; a
    person's file imported into the same model's run makes it imported responses, on the run and the runs page."""
    from apps.evaluation.services import create_model, create_run

    demo = create_model(name="Sori demo model", version="scripted", answer_source="demo", acting_user=admin)
    run = create_run(model=demo, source_benchmark=voicebench, acting_user=admin)
    rows = [{"id": k, "response": v} for k, v in _answers(run).items()]
    import_responses(run=run, source=response_file("script.jsonl", rows), answer_source="demo")
    run.refresh_from_db()
    assert run.answer_source == "demo"
    assert 'id="demo-answers"' in client_for(admin).get(f"/evaluation/runs/{run.pk}/").content.decode()

    import_responses(run=run, source=response_file("real.jsonl", rows))

    run.refresh_from_db()
    assert run.answer_source == "imported"
    page = client_for(admin).get(f"/evaluation/runs/{run.pk}/").content.decode()
    assert 'id="demo-answers"' not in page and "Demo answers (scripted" not in page
    runs_page = client_for(admin).get("/evaluation/runs/").content.decode()
    assert "demo answers</span>" not in runs_page and "Imported responses (a file)" in runs_page
