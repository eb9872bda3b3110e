"""The ground-truth correction stage with the real SDKs against the fake provider server."""


import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from apps.agents.models import AgentCall, RoleAssignment
from apps.agents.services import NoProviderConfigured
from apps.consultations.models import DecisionQuestion
from apps.core.errors import Conflict, InvalidInput
from apps.jobs import services as jobs_services
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import resume_job
from apps.sources.models import SourceBenchmark, SourceSample
from apps.transfer import selectors
from apps.transfer.ground_truth import selectors as ground_truth_selectors
from apps.transfer.ground_truth.services import (
    overturn_correction,
    resolve_correction_by_expert,
    start_ground_truth_review,
)
from apps.transfer.models import (
    Correction,
    CorrectionDecision,
    CorrectionStatus,
    GroundTruthReview,
    ReviewOutcome,
    ReviewRun,
)
from tests.race import run_threads
from tests.transfer.conftest import is_meta, is_reviewer

NEW_ANSWER = {"correction_kind": "new_answer", "new_answer": "Canberra"}
ALIASES = {"correction_kind": "add_aliases", "added_aliases": ["French", "Italian", "Romansh"]}


def run_stage(capture, **kwargs):
    with capture(execute=True):
        run = start_ground_truth_review(benchmark="voicebench", **kwargs)
    run.refresh_from_db()
    return run, Job.objects.get(pk=run.job_id)


@pytest.mark.django_db
def test_a_confirmed_correction_is_applied_without_touching_the_original(
    source_samples, script_agents, django_capture_on_commit_callbacks
):
    fake = script_agents(flag={"Australia": NEW_ANSWER, "Switzerland": ALIASES}, meta="confirm")

    run, job = run_stage(django_capture_on_commit_callbacks)

    assert job.status == JobStatus.SUCCEEDED, job.error
    assert (job.done, job.total) == (5, 5)  # the open-ended commoneval samples are not in scope
    assert sum(is_reviewer(r["body"]) for r in fake.requests) == 5
    assert sum(is_meta(r["body"]) for r in fake.requests) == 2
    australia = SourceSample.objects.get(transcription__contains="Australia")
    assert australia.answer == "Sydney"  # the imported answer is never overwritten
    assert australia.correction.status == CorrectionStatus.CONFIRMED
    effective = selectors.effective_answer(australia)
    assert (effective.answer, effective.included) == ("Canberra", True)
    swiss = selectors.effective_answer(SourceSample.objects.get(transcription__contains="Switzerland"))
    assert (swiss.answer, swiss.aliases) == ("German", ["French", "Italian", "Romansh"])
    # the meta-reviewer judges the change from the sample, without the reviewer's reasoning
    meta_prompt = str(next(r["body"] for r in fake.requests if is_meta(r["body"]) and "Australia" in str(r["body"])))
    assert "Canberra" in meta_prompt and "The answer to the Australia question is wrong." not in meta_prompt
    [row, total] = ground_truth_selectors.correction_report(SourceBenchmark.objects.get())
    assert row == total | {"subset": "sd-qa"}
    assert {k: row[k] for k in ("total", "reviewed", "errors_found", "confirmed", "rejected", "excluded")} == {
        "total": 5, "reviewed": 5, "errors_found": 2, "confirmed": 2, "rejected": 0, "excluded": 0}
    assert row["error_rate"] == 40.0
    assert job.result["report"][0]["confirmed"] == 2
    assert run.reviewer_model == "openai:gpt-4.1" and run.meta_reviewer_model == "anthropic:claude-sonnet-4-5"
    assert AgentCall.objects.filter(job=job).count() == 7


@pytest.mark.django_db
def test_a_rejected_correction_excludes_the_sample(source_samples, script_agents, django_capture_on_commit_callbacks):
    script_agents(flag={"spider": {"correction_kind": "new_answer", "new_answer": "six"}}, meta="reject")

    run_stage(django_capture_on_commit_callbacks)

    spider = SourceSample.objects.get(transcription__contains="spider")
    assert spider.correction.status == CorrectionStatus.REJECTED
    assert spider.correction.meta_rationale == "Meta-reviewer says reject."
    effective = selectors.effective_answer(spider)
    assert (effective.answer, effective.included) == ("eight", False)
    assert spider not in selectors.included_samples(spider.benchmark)
    assert selectors.included_samples(spider.benchmark, subset="sd-qa").count() == 4
    row = ground_truth_selectors.correction_report(spider.benchmark)[0]
    assert (row["errors_found"], row["confirmed"], row["rejected"], row["excluded"], row["error_rate"]) == (1, 0, 1, 1, 0.0)


@pytest.mark.django_db
def test_an_unresolved_correction_can_go_to_an_expert_instead(
    source_samples, script_agents, django_capture_on_commit_callbacks, expert
):
    script_agents(flag={"Hamlet": {"correction_kind": "unanswerable"}}, meta="unsure")

    run_stage(django_capture_on_commit_callbacks, on_unresolved="expert")

    [waiting] = Correction.objects.needing_expert()
    assert waiting.status == CorrectionStatus.NEEDS_EXPERT and waiting.sample.transcription == "Who wrote Hamlet?"
    assert DecisionQuestion.objects.get(origin="ground_truth").correction == waiting  # pushed by the stage itself
    assert selectors.effective_answer(waiting.sample).included is False  # held until the expert answers
    resolve_correction_by_expert(correction=waiting, acting_user=expert, accept=True, note="Hamlet is fine as written? no: ambiguous.")
    assert waiting.status == CorrectionStatus.CONFIRMED
    assert selectors.effective_answer(waiting.sample).reason == "unanswerable as written"
    assert CorrectionDecision.objects.get().decided_as == "expert"


@pytest.mark.django_db
def test_it_refuses_to_start_with_the_same_model_for_both_agents(source_samples, fake_llm):
    RoleAssignment.objects.create(role="meta_reviewer", provider="openai", model="gpt-4.1")
    with pytest.raises(Conflict, match="must be different models"):
        start_ground_truth_review(benchmark="voicebench")
    with pytest.raises(CommandError, match="must be different models"):
        call_command("run_ground_truth_review", "--benchmark", "voicebench")
    assert fake_llm.requests == [] and not Job.objects.exists()


@pytest.mark.django_db
def test_it_refuses_to_start_without_a_provider(source_samples):
    with pytest.raises(NoProviderConfigured, match="OPENAI_API_KEY"):
        start_ground_truth_review(benchmark="voicebench")
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_an_answer_that_stays_malformed_leaves_the_correction_needing_attention(
    source_samples, fake_llm, django_capture_on_commit_callbacks
):
    def reviewer(body):
        if "Australia" in str(body):
            return {"verdict": "error", "rationale": "Canberra is the capital.", **NEW_ANSWER}
        return {"verdict": "correct", "rationale": "Fine."}

    fake_llm.reply_when(is_reviewer, reviewer)
    fake_llm.reply_when(is_meta, '{"verdict": "confirm", "rationale": ')  # malformed, every time

    run, job = run_stage(django_capture_on_commit_callbacks)

    assert job.status == JobStatus.SUCCEEDED
    correction = Correction.objects.get()
    assert correction.status == CorrectionStatus.NEEDS_ATTENTION
    assert "stayed invalid after a retry" in correction.attention_reason
    assert sum(is_meta(r["body"]) for r in fake_llm.requests) == 2  # the answer, then the retry with the error
    assert ground_truth_selectors.correction_report(run.benchmark)[0]["needs_attention"] == 1


@pytest.mark.django_db
def test_the_budget_cap_stops_the_job_before_the_cost_passes_it(
    source_samples, script_agents, django_capture_on_commit_callbacks
):
    fake = script_agents()
    # The worst case of one reviewer call (prompt + 1,024 output tokens on gpt-4.1) is about $0.0096; the
    # fake bills ~250 input and ~20 output tokens (~$0.0007). $0.0115 allows the first calls, then stops.
    run, job = run_stage(django_capture_on_commit_callbacks, budget_usd=0.0115)

    assert job.status == JobStatus.FAILED
    assert "budget cap $0.01" in job.message
    spent = sum(c.cost_usd for c in AgentCall.objects.filter(job=job))
    assert 0 < spent <= 0.0115
    reviewed = GroundTruthReview.objects.count()
    assert 0 < reviewed < 5 and len(fake.requests) == reviewed

    # Raise the budget and resume: the reviewed samples are skipped.
    Job.objects.filter(pk=job.pk).update(params=job.params | {"budget_usd": 5})
    with django_capture_on_commit_callbacks(execute=True):
        assert resume_job(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and GroundTruthReview.objects.count() == 5
    assert len(fake.requests) == 5


@pytest.mark.django_db(transaction=True)
def test_cancel_stops_the_job_and_resume_skips_what_is_done(source_samples, script_agents):
    fake = script_agents()
    seen = []

    def cancel_on_third(body):
        seen.append(1)
        if len(seen) == 3:  # an admin presses Cancel while the third sample is being reviewed
            Job.objects.update(cancel_requested=True)
            connection.close()  # this runs on the fake server's thread
        return {"verdict": "correct", "rationale": "Fine."}

    fake.reset()  # rules answer in the order they were added: this one replaces the default reviewer
    fake.reply_when(is_reviewer, cancel_on_third)

    run = start_ground_truth_review(benchmark="voicebench")
    job = Job.objects.get(pk=run.job_id)
    assert job.status == JobStatus.CANCELLED
    assert GroundTruthReview.objects.count() == 3 and job.done == 3

    assert resume_job(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.done == 5
    assert GroundTruthReview.objects.count() == 5
    assert len(fake.requests) == 5  # nothing reviewed twice


@pytest.mark.django_db
def test_running_the_stage_again_skips_reviewed_samples_and_costs_nothing(
    source_samples, script_agents, django_capture_on_commit_callbacks
):
    fake = script_agents(flag={"Australia": NEW_ANSWER})
    run_stage(django_capture_on_commit_callbacks, limit=3)
    assert len(fake.requests) == 4  # three reviews, one meta-review

    with django_capture_on_commit_callbacks(execute=True):
        call_command("run_ground_truth_review", "--benchmark", "voicebench", "--limit", "3")
    assert len(fake.requests) == 4
    second = Job.objects.order_by("-pk").first()
    assert second.status == JobStatus.SUCCEEDED and (second.done, second.total) == (3, 3)


@pytest.mark.django_db
def test_an_admin_overturns_a_decision_and_their_name_is_recorded(
    source_samples, script_agents, django_capture_on_commit_callbacks, admin, client_for
):
    script_agents(flag={"Australia": NEW_ANSWER}, meta="reject")
    run_stage(django_capture_on_commit_callbacks)
    correction = Correction.objects.get()
    client = client_for(admin)

    page = client.get("/transfer/ground-truth/corrections/").content.decode()
    assert "The answer to the Australia question is wrong." in page and "Meta-reviewer says reject." in page

    response = client.post(f"/transfer/ground-truth/corrections/{correction.pk}/overturn/",
                           {"to_status": "confirmed", "note": "Canberra has been the capital since 1913."})
    assert response.status_code == 302
    correction.refresh_from_db()
    assert correction.status == CorrectionStatus.CONFIRMED and correction.meta_verdict == "reject"
    decision = CorrectionDecision.objects.get()
    assert (decision.decided_by, decision.decided_as, decision.from_status) == (admin, "admin", "rejected")
    assert selectors.effective_answer(correction.sample).answer == "Canberra"
    assert "alice_admin (admin) changed rejected → confirmed" in client.get("/transfer/ground-truth/corrections/").content.decode()

    with pytest.raises(InvalidInput, match="say why"):
        overturn_correction(correction=correction, acting_user=admin, to_status="rejected", note=" ")


@pytest.mark.django_db
def test_the_stage_page_says_plainly_that_no_provider_is_configured(source_samples, admin, client_for):
    page = client_for(admin).get("/transfer/ground-truth/").content.decode()
    assert "The stage cannot start" in page and "No openai provider is configured" in page
    assert "no provider configured" in client_for(admin).get("/agents/").content.decode()


@pytest.mark.django_db
def test_the_stage_page_starts_a_run_and_shows_progress_and_cost(
    source_samples, script_agents, admin, client_for, django_capture_on_commit_callbacks
):
    script_agents()
    client = client_for(admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/transfer/ground-truth/", {"benchmark": "voicebench", "subset": "sd-qa",
                                                           "on_unresolved": "exclude", "budget_usd": "2"})
    assert response.status_code == 302
    page = client.get("/transfer/ground-truth/").content.decode()
    assert 'aria-label="Ground-truth review of voicebench/sd-qa progress"' in page
    assert 'cost so far <strong data-stat="run-cost"><span class="stat" data-state="ok">$0.0' in page
    assert "(5 calls)" in page and "of a $2.00 budget" in page
    assert "5 / 5" in page


def test_a_reviewer_failure_marks_the_sample_visibly_and_the_job_goes_on(
    source_samples, fake_llm, django_capture_on_commit_callbacks, settings, admin, client_for
):
    settings.AGENTS_MAX_ATTEMPTS = 2
    fake_llm.reply_when(lambda body: "spider" in str(body), lambda body: "I cannot answer in JSON, sorry.")
    fake_llm.reply_when(is_reviewer, {"verdict": "correct", "rationale": "Fine."})

    _, job = run_stage(django_capture_on_commit_callbacks)

    assert job.status == JobStatus.SUCCEEDED
    review = GroundTruthReview.objects.get(sample__transcription__contains="spider")
    assert review.outcome == ReviewOutcome.NEEDS_ATTENTION and "not valid JSON" in review.attention_reason
    page = client_for(admin).get("/transfer/ground-truth/corrections/?status=needs_attention").content.decode()
    assert "Samples whose review needs attention" in page and "How many legs does a spider have?" in page
    assert "the answer stayed invalid after a retry" in page


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_starts_racing_never_review_a_sample_twice(source_samples, script_agents):
    """Two admins start the stage at once: a second start is refused while one runs, and if both get through,
    the one-review-per-sample constraint keeps one record per sample and neither job fails."""
    script_agents()

    def start():
        start_ground_truth_review(benchmark="voicebench")

    errors = run_threads([start, start])
    assert GroundTruthReview.objects.count() == 5
    assert all(isinstance(e, Conflict) and "already running" in str(e) for e in errors)
    assert set(Job.objects.values_list("status", flat=True)) == {JobStatus.SUCCEEDED}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_admins_clicking_start_at_once_start_one_run(source_samples, script_agents, make_user, client_for,
                                                          monkeypatch):
    """Two real requests race to start the stage while no worker has picked a job up yet: the benchmark's row
    lock lets one through and the other is refused, naming the job that runs."""
    script_agents()
    queued = []
    monkeypatch.setattr(jobs_services, "_dispatch", queued.append)  # no worker yet: the jobs stay queued
    clients = [client_for(make_user(name, "admin")) for name in ("alice_admin", "anna_admin")]
    pages = []

    def start(client):
        response = client.post("/transfer/ground-truth/", {"benchmark": "voicebench", "on_unresolved": "exclude"},
                               follow=True)
        pages.append(response.content.decode())

    errors = run_threads([lambda c=c: start(c) for c in clients])
    assert errors == []
    run = ReviewRun.objects.get()
    assert list(Job.objects.values_list("pk", flat=True)) == queued == [run.job_id]
    assert sum("Ground-truth review started." in page for page in pages) == 1
    assert sum(f"a ground-truth review of voicebench is already running (job #{run.job_id})" in page
               for page in pages) == 1


@pytest.mark.django_db
def test_a_provider_refusing_the_key_stops_the_job_instead_of_marking_every_sample(
    source_samples, fake_llm, django_capture_on_commit_callbacks
):
    fake_llm.fail(status=401, times=5)
    _, job = run_stage(django_capture_on_commit_callbacks)
    assert job.status == JobStatus.FAILED and "refused the request: HTTP 401" in job.message
    assert len(fake_llm.requests) == 1 and not GroundTruthReview.objects.exists()


@pytest.mark.django_db
def test_items_needing_attention_are_asked_again_after_an_admin_retries_them(
    source_samples, fake_llm, django_capture_on_commit_callbacks, admin, client_for
):
    fake_llm.reply_when(lambda body: "spider" in str(body) and is_reviewer(body), "not json")
    fake_llm.reply_when(is_reviewer, {"verdict": "correct", "rationale": "Fine."})
    run_stage(django_capture_on_commit_callbacks)
    assert GroundTruthReview.objects.filter(outcome=ReviewOutcome.NEEDS_ATTENTION).count() == 1
    page = client_for(admin).get("/transfer/ground-truth/").content.decode()
    assert "Ask the agents again for the 1 item(s) needing attention" in page

    fake_llm.reset()
    fake_llm.reply_when(is_reviewer, {"verdict": "correct", "rationale": "Fine now."})
    client_for(admin).post("/transfer/ground-truth/voicebench/retry-attention/")
    run_stage(django_capture_on_commit_callbacks)  # a new run picks up only that sample
    assert not GroundTruthReview.objects.filter(outcome=ReviewOutcome.NEEDS_ATTENTION).exists()
    assert len(fake_llm.requests) == 1


@pytest.mark.postgres  # worker threads writing at once; the in-memory SQLite test database locks whole tables
@pytest.mark.django_db(transaction=True)
def test_parallel_review_respects_the_provider_limit_and_the_budget(source_samples, script_agents, settings):
    settings.TRANSFER_REVIEW_WORKERS = 4
    settings.AGENTS_CONCURRENCY = {"openai": 2, "anthropic": 2}
    fake = script_agents(flag={"Australia": NEW_ANSWER})
    fake.slow(0.2, times=6)

    run = start_ground_truth_review(benchmark="voicebench")
    job = Job.objects.get(pk=run.job_id)
    assert job.status == JobStatus.SUCCEEDED and (job.done, job.total) == (5, 5)
    assert fake.max_in_flight_by_api["openai"] == 2  # the reviewer's provider, at its limit and no further
    assert Correction.objects.get().status == CorrectionStatus.CONFIRMED

    # Four workers at once must not pass a cap that each one alone would respect: the worst case of calls
    # in flight is held against the budget.
    GroundTruthReview.objects.all().delete()
    from apps.agents.models import CachedResponse

    CachedResponse.objects.all().delete()
    fake.slow(0.2, times=6)
    run = start_ground_truth_review(benchmark="voicebench", budget_usd=0.0115)
    job = Job.objects.get(pk=run.job_id)
    assert job.status == JobStatus.FAILED and "budget cap" in job.message
    assert sum(c.cost_usd for c in AgentCall.objects.filter(job=job)) <= 0.0115


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_cancel_with_parallel_workers_stops_submitting_and_resume_finishes(source_samples, script_agents, settings):
    settings.TRANSFER_REVIEW_WORKERS = 2
    fake = script_agents()
    seen = []

    def cancel_on_second(body):
        seen.append(1)
        if len(seen) == 2:
            Job.objects.update(cancel_requested=True)
            connection.close()
        return {"verdict": "correct", "rationale": "Fine."}

    fake.reset()
    fake.reply_when(is_reviewer, cancel_on_second)
    run = start_ground_truth_review(benchmark="voicebench")
    job = Job.objects.get(pk=run.job_id)
    assert job.status == JobStatus.CANCELLED
    stopped_at = GroundTruthReview.objects.count()
    assert 2 <= stopped_at < 5

    assert resume_job(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and GroundTruthReview.objects.count() == 5
    assert len(fake.requests) == 5
