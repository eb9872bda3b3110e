"""A run reads as collecting or evaluating from its job (issue 35 §2): the row stores only the settled state,
so a job that ends, however it ends, can never leave a run shown as busy, and a job that starts needs no write
to the run for the run to show it."""

import pytest
from django.db import IntegrityError, transaction

from apps.evaluation.models import EvalItem, EvaluationRun, RunStatus
from apps.evaluation.services import COLLECT_JOB, EVALUATE_JOB, RESCORE_JOB, start_evaluation
from apps.jobs import dispatch
from apps.jobs.models import Job, JobStatus

pytestmark = pytest.mark.django_db

FINISHED = [JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED]


def _shown_by_sql(run) -> set[str]:
    return {status for status in RunStatus if EvaluationRun.objects.showing(status).filter(pk=run.pk).exists()}


def _with_job(run, kind, status, state=RunStatus.READY):
    job = Job.objects.create(kind=kind, title=kind, status=status, params={"run": run.pk})
    field = "collect_job" if kind == COLLECT_JOB else "evaluate_job"
    EvaluationRun.objects.filter(pk=run.pk).update(**{field: job}, state=state)
    return job


def test_a_run_shows_evaluating_while_its_job_runs_without_a_write_to_its_row(english_run):
    job = _with_job(english_run, EVALUATE_JOB, JobStatus.QUEUED)
    row = EvaluationRun.objects.filter(pk=english_run.pk).values().get()

    Job.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING)

    run = EvaluationRun.objects.get(pk=english_run.pk)
    assert (run.status, run.state, run.get_status_display()) == (RunStatus.EVALUATING, RunStatus.READY, "Evaluating")
    assert EvaluationRun.objects.filter(pk=run.pk).values().get() == row
    assert _shown_by_sql(run) == {RunStatus.EVALUATING}


@pytest.mark.parametrize("kind", [EVALUATE_JOB, RESCORE_JOB])
@pytest.mark.parametrize("ended", FINISHED)
def test_a_run_whose_job_ended_never_shows_evaluating(english_run, kind, ended):
    job = _with_job(english_run, kind, JobStatus.RUNNING, state=RunStatus.NEEDS_ATTENTION)
    Job.objects.filter(pk=job.pk).update(status=ended)

    run = EvaluationRun.objects.get(pk=english_run.pk)
    assert run.status == RunStatus.NEEDS_ATTENTION
    assert _shown_by_sql(run) == {RunStatus.NEEDS_ATTENTION}


@pytest.mark.parametrize("status", [JobStatus.QUEUED, JobStatus.RUNNING, *FINISHED])
def test_a_collection_is_read_the_same_in_python_and_in_sql(english_run, status):
    _with_job(english_run, COLLECT_JOB, status, state=RunStatus.WAITING)
    run = EvaluationRun.objects.get(pk=english_run.pk)
    assert run.status == (RunStatus.COLLECTING if status in (JobStatus.QUEUED, JobStatus.RUNNING) else RunStatus.WAITING)
    assert _shown_by_sql(run) == {run.status}


@pytest.mark.parametrize("busy", [RunStatus.COLLECTING, RunStatus.EVALUATING])
def test_the_row_refuses_to_store_a_busy_status(english_run, busy):
    with pytest.raises(IntegrityError), transaction.atomic():
        EvaluationRun.objects.filter(pk=english_run.pk).update(state=busy)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_starting_an_evaluation_links_the_job_and_keeps_the_state_settled(english_run, admin, settings):
    before = dispatch.celery_sender()
    settings.JOB_RUNNER = "celery"
    dispatch.register_celery_sender(lambda pk: None)  # no worker: the job stays queued
    try:
        EvalItem.objects.filter(run=english_run).update(response="Canberra")
        job = start_evaluation(run=english_run, acting_user=admin)
    finally:
        dispatch.register_celery_sender(before)

    run = EvaluationRun.objects.get(pk=english_run.pk)
    assert (run.state, run.status, run.evaluate_job_id) == (RunStatus.WAITING, RunStatus.EVALUATING, job.pk)
    Job.objects.filter(pk=job.pk).update(status=JobStatus.FAILED)
    assert EvaluationRun.objects.get(pk=english_run.pk).status == RunStatus.WAITING


@pytest.mark.django_db(transaction=True)
def test_the_migration_settles_runs_stored_as_busy():
    from tests.migrating import migrate

    old = migrate([("evaluation", "0008_run_english_source_and_kind")])
    try:
        Model, Run = old.get_model("evaluation", "EvaluatedModel"), old.get_model("evaluation", "EvaluationRun")
        source = old.get_model("sources", "SourceBenchmark").objects.create(name="voicebench", format="voicebench")
        model = Model.objects.create(name="m")

        def run(status, **fields):
            return Run.objects.create(model=model, source_benchmark=source, benchmark_name="voicebench",
                                      family="spoken-qa", language="en", status=status, **fields).pk

        runs = {run("collecting"): RunStatus.WAITING, run("evaluating"): RunStatus.READY,
                run("evaluating", evaluated_at="2026-01-01T00:00:00Z"): RunStatus.EVALUATED,
                run("needs_attention"): RunStatus.NEEDS_ATTENTION}
    finally:
        new = migrate([("evaluation", "0009_run_state_settled")])
    assert dict(new.get_model("evaluation", "EvaluationRun").objects.values_list("pk", "state")) == runs
