"""A job's end as its pages show it (issue 34): the progress poll that first finds a job finished tells the page
(job-finished) so its live regions update without a reload; a failed job's bar is red and says why in words,
with the trace only under the technical details; a cancelled one says so; the job page shows who started it,
not the worker's host and process id."""

import json

import pytest
from django.template import Context, Template
from django.test import RequestFactory
from django.utils import timezone

from apps.core.errors import InvalidInput
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import failure_in_words, job_handler, run_job, start_job

pytestmark = pytest.mark.django_db


@job_handler("tests.fails_with_a_bug")
def _a_bug(job, progress):
    progress.set_total(4)
    progress.advance(2)
    return {}["missing"]


@job_handler("tests.refused")
def _refused(job, progress):
    raise InvalidInput("the budget of 0.50 USD would be passed by the next call")


def _poll(client, job):
    return client.get(f"/jobs/{job.pk}/progress/", HTTP_HX_REQUEST="true")


def test_the_poll_that_finds_the_job_finished_tells_the_page_once(admin, client_for):
    client = client_for(admin)
    job = Job.objects.create(kind="tests.refused", title="Running", status=JobStatus.RUNNING, total=4, done=2)
    running = _poll(client, job)
    assert "HX-Trigger-After-Settle" not in running and 'hx-trigger="every 1s"' in running.content.decode()

    Job.objects.filter(pk=job.pk).update(status=JobStatus.SUCCEEDED, done=4, finished_at=timezone.now())
    finished = _poll(client, job)
    assert json.loads(finished["HX-Trigger-After-Settle"]) == {"job-finished": {"job": job.pk, "status": "succeeded"}}
    # The finished bar polls no more, so the page hears of the end once.
    assert "every 1s" not in finished.content.decode()
    # A plain request (not htmx) raises nothing.
    assert "HX-Trigger-After-Settle" not in client.get(f"/jobs/{job.pk}/progress/")


def test_cancelling_a_queued_job_tells_the_page_too(admin, client_for):
    job = Job.objects.create(kind="tests.refused", title="Queued")
    response = client_for(admin).post(f"/jobs/{job.pk}/cancel/", HTTP_HX_REQUEST="true")
    assert json.loads(response["HX-Trigger-After-Settle"])["job-finished"]["status"] == "cancelled"
    assert 'data-testid="job-cancelled"' in response.content.decode()


def test_a_failed_jobs_bar_is_red_and_says_why_in_words(admin, client_for, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = start_job(kind="tests.fails_with_a_bug", title="A job with a bug", acting_user=admin)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.done == 2
    assert job.failure_reason.startswith("an unexpected error in Sori (KeyError: 'missing')")
    html = _poll(client_for(admin), job).content.decode()
    assert 'class="job-progress job-progress--failed"' in html
    assert "Failed after 2 of 4:</strong> an unexpected error in Sori (KeyError: &#x27;missing&#x27;)" in html
    # The trace is there for whoever needs it, folded under the technical details, never open as the reason.
    reason, details = html.split('data-testid="job-failure"')[1].split("<details", 1)
    assert "Traceback" not in reason and "<summary>Technical details</summary>" in details and "Traceback" in details


def test_an_applications_own_refusal_is_the_reason_as_written(admin, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = start_job(kind="tests.refused", title="Refused", acting_user=admin)
    job.refresh_from_db()
    assert job.failure_reason == "the budget of 0.50 USD would be passed by the next call"
    assert failure_in_words(TypeError()) == "an unexpected error in Sori (TypeError); the technical details have its trace"


def test_a_job_that_has_not_failed_has_no_failure_reason(admin):
    job = Job.objects.create(kind="tests.refused", title="Fine", status=JobStatus.SUCCEEDED, message="Failed: nothing")
    assert job.failure_reason == ""


def test_the_job_page_names_who_started_it_and_keeps_the_worker_for_the_technical_line(admin, client_for):
    job = Job.objects.create(kind="tests.refused", title="Done", status=JobStatus.SUCCEEDED, created_by=admin,
                             worker="vm:16148", finished_at=timezone.now())
    html = client_for(admin).get(f"/jobs/{job.pk}/").content.decode()
    head = html.split("<h1>", 1)[1].split('id="job-technical"')[0]
    assert f"Started by {admin}" in head and "vm:16148" not in head and "last run by" not in html
    assert "Tests.refused" not in head  # the kind's code is for the technical line too
    assert "Technical details: tests.refused, job #" in html and "<code>vm:16148</code>" in html


def test_a_live_region_asks_for_its_page_again_and_takes_only_itself():
    request = RequestFactory().get("/transfer/ground-truth/?benchmark=voicebench")
    html = Template('{% load live %}<section {% live_region "gt-report" %}></section>').render(Context({"request": request}))
    assert html == ('<section id="gt-report" data-live-region hx-get="/transfer/ground-truth/?benchmark=voicebench" '
                    'hx-trigger="job-finished from:body" hx-select="#gt-report" hx-swap="outerHTML" hx-disinherit="*"></section>')


def test_run_job_of_a_bug_keeps_the_trace_in_error(admin):
    job = Job.objects.create(kind="tests.fails_with_a_bug", title="Bug")
    run_job(job.pk)
    job.refresh_from_db()
    assert "Traceback" in job.error and "KeyError" in job.error and "Traceback" not in job.message
