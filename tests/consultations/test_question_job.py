""""Raise more questions" is a job like the other agent steps: the request only queues it, so no agent is
called while the admin's page waits."""

import pytest

from apps.consultations import services
from apps.consultations.models import QUESTIONS_JOB, UNDECIDED, DecisionQuestion, RoundStatus
from apps.jobs.models import Job, JobStatus

from .conftest import is_question_writing

pytestmark = pytest.mark.django_db


def test_raising_more_questions_queues_a_job_and_calls_no_agent_in_the_request(
    fake_llm, rulebooks, samples, admin, client_for, django_capture_on_commit_callbacks
):
    _, wq1, wq2, _ = samples
    round = services.create_round(rulebook=rulebooks["ko-hypertranslation"], acting_user=admin, max_questions=3)
    services.set_round_status(round=round, status=RoundStatus.ANSWERING)
    for sample in (wq1, wq2):
        services.record_analysis(round=round, sample=sample, version=round.base_version, action=UNDECIDED,
                                 reason="the answer is time-sensitive")
    fake_llm.reply_when(is_question_writing, {"questions": [{
        "title": "Time-sensitive answers", "decision_needed": "How should a Korean sample handle them?",
        "options": [{"key": "A", "label": "Keep", "effect": "aliases grow"},
                    {"key": "B", "label": "Add a year", "effect": "equivalent replacement"}],
        "recommendation": "B", "recommendation_why": "one correct answer", "sample_ids": [wq1.pk, wq2.pk],
    }]})

    with django_capture_on_commit_callbacks() as queued:
        response = client_for(admin).post(f"/consultations/rounds/{round.pk}/questions/")
    assert response.status_code == 302 and fake_llm.requests == []
    job = Job.objects.get(kind=QUESTIONS_JOB, params__round=round.pk)
    assert job.status == JobStatus.QUEUED and job.created_by == admin
    assert job.title in client_for(admin).get(f"/consultations/rounds/{round.pk}/").content.decode()

    for run in queued:  # what the worker does once the request has committed
        run()
    job.refresh_from_db()
    assert (job.status, job.result) == (JobStatus.SUCCEEDED, {"questions": 1}), job.error
    question = DecisionQuestion.objects.get(round=round)
    assert question.agent_call.job == job and len(fake_llm.requests) == 1


def test_a_closed_round_takes_no_new_questions(rulebooks, admin, client_for):
    round = services.create_round(rulebook=rulebooks["ko-hypertranslation"], acting_user=admin)
    services.set_round_status(round=round, status=RoundStatus.CODIFYING)
    response = client_for(admin).post(f"/consultations/rounds/{round.pk}/questions/", follow=True)
    assert "takes no new questions now" in response.content.decode()
    assert not Job.objects.filter(kind=QUESTIONS_JOB).exists()
