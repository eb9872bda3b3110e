"""One run, one job: starts racing on PostgreSQL (real threads, real transactions, tests/race.py) through the API
and the run page end with exactly one job and the others refused (409 run_busy naming that job); a start while
the job queue (the Celery broker) is down answers 503 and leaves nothing behind."""

import socket

import pytest
from celery import Celery
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from apps.evaluation.models import EvalItem, EvaluationRun, RunStatus
from apps.evaluation.services import COLLECT_JOB, EVALUATE_JOB, start_evaluation
from apps.jobs import dispatch
from apps.jobs.models import Job, JobStatus
from tests.race import run_threads

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def queued_jobs(settings):
    """Jobs go to a stand-in broker that only records them (no worker takes them), so each job a start makes
    stays queued and the race is about the start alone."""
    sent = []
    before = dispatch.celery_sender()
    settings.JOB_RUNNER = "celery"
    dispatch.register_celery_sender(sent.append)
    yield sent
    dispatch.register_celery_sender(before)


def _answered(run):
    EvalItem.objects.filter(run=run).update(response="Canberra")


def _finished_jobs(run):
    """The run as it is once it was collected and evaluated before: both its jobs finished."""
    collected = Job.objects.create(kind=COLLECT_JOB, title="Collect", status=JobStatus.SUCCEEDED, params={"run": run.pk})
    evaluated = Job.objects.create(kind=EVALUATE_JOB, title="Evaluate", status=JobStatus.SUCCEEDED, params={"run": run.pk})
    EvaluationRun.objects.filter(pk=run.pk).update(collect_job=collected, evaluate_job=evaluated, state=RunStatus.EVALUATED)
    return {collected.pk, evaluated.pk}


def _api_starts(admin, path, n):
    answers = []

    def start():
        client = APIClient()
        client.force_authenticate(admin)
        answers.append(client.post(path, {}, format="json"))

    assert run_threads([start] * n) == []
    return answers


def _new_unfinished(run, before=frozenset()):
    return list(Job.objects.filter(kind__startswith="evaluation.", params__run=run.pk).exclude(pk__in=before)
                .filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]))


def _exactly_one_started(answers, made, sent):
    started = [a for a in answers if a.status_code == 202]
    refused = [a for a in answers if a.status_code == 409]
    assert len(started) == 1 and len(refused) == len(answers) - 1, [(a.status_code, a.content[:200]) for a in answers]
    assert len(made) == 1 and started[0].json()["job"] == made[0].pk and sent == [made[0].pk]
    for answer in refused:
        assert answer.json()["code"] == "run_busy" and f"#{made[0].pk}" in answer.json()["detail"]


@pytest.mark.parametrize("n", [2, 8])
@pytest.mark.parametrize("finished_before", [False, True], ids=["first-start", "after-a-finished-job"])
def test_simultaneous_evaluate_requests_make_one_job_and_the_others_are_told_which(
        n, finished_before, english_run, admin, queued_jobs):
    _answered(english_run)
    old = _finished_jobs(english_run) if finished_before else set()

    answers = _api_starts(admin, f"/api/evaluation/runs/{english_run.pk}/evaluate/", n)

    made = _new_unfinished(english_run, old)
    _exactly_one_started(answers, made, queued_jobs)
    run = EvaluationRun.objects.get(pk=english_run.pk)
    assert run.evaluate_job_id == made[0].pk and run.status == RunStatus.EVALUATING


@pytest.mark.parametrize("n", [2, 8])
@pytest.mark.parametrize("finished_before", [False, True], ids=["first-start", "after-a-finished-job"])
def test_simultaneous_collect_requests_make_one_job(n, finished_before, english_run, admin, queued_jobs):
    old = _finished_jobs(english_run) if finished_before else set()

    answers = _api_starts(admin, f"/api/evaluation/runs/{english_run.pk}/collect/", n)

    made = _new_unfinished(english_run, old)
    _exactly_one_started(answers, made, queued_jobs)
    assert EvaluationRun.objects.get(pk=english_run.pk).collect_job_id == made[0].pk


def test_a_collect_and_an_evaluate_at_once_make_one_job_between_them(english_run, admin, queued_jobs):
    """One unfinished job per run, whatever its kind: scoring a run whose responses are being collected would
    score half of them, and both write the run's status."""
    _answered(english_run)
    old = _finished_jobs(english_run)
    answers = []

    def start(path):
        def post():
            client = APIClient()
            client.force_authenticate(admin)
            answers.append(client.post(path, {}, format="json"))
        return post

    base = f"/api/evaluation/runs/{english_run.pk}"
    assert run_threads([start(f"{base}/collect/"), start(f"{base}/evaluate/")] * 2) == []

    _exactly_one_started(answers, _new_unfinished(english_run, old), queued_jobs)


def test_a_double_clicked_evaluate_button_on_the_run_page_makes_one_job(english_run, admin, queued_jobs):
    _answered(english_run)
    old = _finished_jobs(english_run)
    pages = []

    def click():
        client = Client()
        client.force_login(admin)
        pages.append(client.post(reverse("evaluation:evaluate", args=[english_run.pk]), follow=True))

    assert run_threads([click, click]) == []

    made = _new_unfinished(english_run, old)
    assert len(made) == 1 and queued_jobs == [made[0].pk]
    # The pages' HTML, not their context: the test client's template signal is shared by the two threads.
    told = [page for page in pages if f"the run is already evaluating (job #{made[0].pk}" in page.content.decode()]
    assert [page.status_code for page in pages] == [200, 200] and len(told) == 1


def test_the_database_refuses_a_second_unfinished_job_on_a_run(english_run, admin, queued_jobs):
    """The constraint behind the lock: a start that bypassed the check would still not make a second job."""
    _answered(english_run)
    first = start_evaluation(run=english_run, acting_user=admin)

    with pytest.raises(IntegrityError), transaction.atomic():
        Job.objects.create(kind=EVALUATE_JOB, title="a second one", subject=first.subject)

    Job.objects.filter(pk=first.pk).update(status=JobStatus.SUCCEEDED)
    second = start_evaluation(run=english_run, acting_user=admin)  # a finished job never blocks the next
    assert second.subject == first.subject and second.status == JobStatus.QUEUED


# --- the job queue is down ---------------------------------------------------------------------------------
@pytest.fixture
def dead_broker(settings):
    """SORI_JOB_RUNNER=celery with a broker URL on a port of 127.0.0.1 nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = Celery("sori-dead-broker", broker=f"redis://127.0.0.1:{port}/0")
    before = dispatch.celery_sender()
    settings.JOB_RUNNER = "celery"
    dispatch.register_celery_sender(lambda job_id: app.send_task("sori.run_job", args=[job_id]))
    yield
    dispatch.register_celery_sender(before)


def test_an_evaluate_request_with_the_broker_down_answers_503_and_leaves_nothing_behind(english_run, admin, dead_broker):
    _answered(english_run)
    old = _finished_jobs(english_run)
    client = APIClient()
    client.force_authenticate(admin)

    answer = client.post(f"/api/evaluation/runs/{english_run.pk}/evaluate/", {}, format="json")

    assert answer.status_code == 503, answer.content
    assert answer.json()["code"] == "queue_unavailable" and "nothing was started" in answer.json()["detail"]
    assert set(Job.objects.filter(params__run=english_run.pk).values_list("pk", flat=True)) == old  # no job row left
    run = EvaluationRun.objects.get(pk=english_run.pk)
    assert run.status == RunStatus.EVALUATED and {run.collect_job_id, run.evaluate_job_id} == old


def test_a_collect_request_with_the_broker_down_answers_503_and_the_run_can_start_once_it_is_back(
        english_run, admin, dead_broker):
    client = APIClient()
    client.force_authenticate(admin)

    answer = client.post(f"/api/evaluation/runs/{english_run.pk}/collect/", {}, format="json")

    assert answer.status_code == 503 and answer.json()["code"] == "queue_unavailable"
    assert not Job.objects.filter(params__run=english_run.pk).exists()
    run = EvaluationRun.objects.get(pk=english_run.pk)
    assert (run.status, run.collect_job_id, run.answer_source) == (RunStatus.WAITING, None, english_run.answer_source)

    sent = []
    dispatch.register_celery_sender(sent.append)  # the broker is back
    again = client.post(f"/api/evaluation/runs/{english_run.pk}/collect/", {}, format="json")
    assert again.status_code == 202 and sent == [again.json()["job"]]


def test_the_run_page_says_the_job_queue_is_down(english_run, admin, dead_broker):
    _answered(english_run)
    client = Client()
    client.force_login(admin)

    page = client.post(reverse("evaluation:evaluate", args=[english_run.pk]), follow=True)

    assert page.status_code == 200
    assert any("job queue" in m.message for m in page.context["messages"])
    assert not Job.objects.filter(params__run=english_run.pk).exists()
