"""Ground-truth corrections the meta-reviewer did not confirm, sent to an expert, arrive in the inbox as
questions; the expert's answer resolves the correction through apps.transfer."""

import pytest

from apps.consultations import services
from apps.consultations.models import DecisionQuestion, QuestionOrigin, QuestionStatus
from apps.core.errors import Conflict
from apps.transfer.ground_truth.services import record_meta_verdict
from apps.transfer.models import (
    Correction,
    CorrectionStatus,
    GroundTruthReview,
    ReviewOutcome,
    ReviewRun,
    UnresolvedPolicy,
)
from apps.transfer.selectors import effective_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def correction_for_expert(samples):
    """The state the ground-truth stage leaves when the admin chose "send to an expert" and the meta-reviewer
    rejected the reviewer's proposal."""
    sample = samples[1]
    run = ReviewRun.objects.create(benchmark=sample.benchmark, on_unresolved=UnresolvedPolicy.EXPERT,
                                   reviewer_model="openai:gpt-4.1", meta_reviewer_model="anthropic:claude-sonnet-4-5")
    review = GroundTruthReview.objects.create(sample=sample, run=run, outcome=ReviewOutcome.CORRECTION_PROPOSED)
    correction = Correction.objects.create(
        review=review, sample=sample, kind="add_aliases", proposed_aliases=["Nur-Sultan"],
        reviewer_rationale="The capital was called Nur-Sultan from 2019 to 2022.",
    )
    record_meta_verdict(correction=correction, status=CorrectionStatus.NEEDS_EXPERT, meta_verdict="reject",
                        meta_rationale="The question asks for the current name.")
    return correction


def test_a_correction_sent_to_an_expert_is_in_the_inbox_before_anyone_opens_a_page(correction_for_expert):
    question = DecisionQuestion.objects.get(origin=QuestionOrigin.GROUND_TRUTH)
    assert question.correction == correction_for_expert and correction_for_expert.expert_question == question


def test_pages_only_read_opening_them_raises_no_question(samples, expert, admin, client_for, api_client):
    """A correction left waiting without its question (as only a write outside transfer's could leave it)
    stays so: no GET path writes."""
    sample = samples[1]
    run = ReviewRun.objects.create(benchmark=sample.benchmark, on_unresolved=UnresolvedPolicy.EXPERT)
    review = GroundTruthReview.objects.create(sample=sample, run=run, outcome=ReviewOutcome.CORRECTION_PROPOSED)
    Correction.objects.create(review=review, sample=sample, kind="unanswerable", reviewer_rationale="x",
                              status=CorrectionStatus.NEEDS_EXPERT)
    for user, url in [(expert, "/"), (expert, "/consultations/inbox/"), (admin, "/consultations/rounds/")]:
        assert client_for(user).get(url).status_code == 200
    api_client.force_authenticate(expert)
    assert api_client.get("/api/consultations/questions/?status=open").json()["results"] == []
    assert not DecisionQuestion.objects.exists()


def test_a_failed_hand_off_leaves_the_correction_where_it_was(samples, monkeypatch):
    def refuse(**_):
        raise Conflict("the inbox refused it")

    monkeypatch.setattr(services, "raise_ground_truth_question", refuse)
    sample = samples[1]
    run = ReviewRun.objects.create(benchmark=sample.benchmark, on_unresolved=UnresolvedPolicy.EXPERT)
    review = GroundTruthReview.objects.create(sample=sample, run=run, outcome=ReviewOutcome.CORRECTION_PROPOSED)
    correction = Correction.objects.create(review=review, sample=sample, kind="unanswerable", reviewer_rationale="x")
    with pytest.raises(Conflict):
        record_meta_verdict(correction=correction, status=CorrectionStatus.NEEDS_EXPERT, meta_verdict="unsure")
    assert Correction.objects.get(pk=correction.pk).status == CorrectionStatus.PROPOSED
    assert not DecisionQuestion.objects.exists()


def test_a_correction_for_an_expert_becomes_an_inbox_question_and_the_answer_resolves_it(correction_for_expert, expert, client_for, api_client):
    inbox = client_for(expert).get("/consultations/inbox/")
    question = DecisionQuestion.objects.get(origin=QuestionOrigin.GROUND_TRUTH)
    assert question in list(inbox.context["waiting"])
    assert question.round is None and list(question.affected_samples.all()) == [correction_for_expert.sample]
    assert "Nur-Sultan" in question.title and "current name" in question.decision_needed
    page = client_for(expert).get(f"/consultations/questions/{question.pk}/").content.decode()
    assert "Ground-truth correction" in page and "What is the capital of Kazakhstan?" in page and "Apply the correction" in page
    assert "My own answer" not in page  # the answer must map onto the correction: apply it or reject it
    # Pages only read: opening the inbox again raises nothing new.
    client_for(expert).get("/consultations/inbox/")
    api_client.force_authenticate(expert)
    assert [q["id"] for q in api_client.get("/api/consultations/questions/?status=open").json()["results"]] == [question.pk]

    with pytest.raises(Conflict, match="answered with one of its options"):
        services.submit_answer(question=question, acting_user=expert, text="maybe")
    response = api_client.post(f"/api/consultations/questions/{question.pk}/answers/", {"option": "A", "confidence": 4}, format="json")
    assert response.status_code == 201
    question.refresh_from_db()
    correction_for_expert.refresh_from_db()
    assert question.status == QuestionStatus.DECIDED
    assert correction_for_expert.status == CorrectionStatus.CONFIRMED
    decision = correction_for_expert.decisions.get()
    assert decision.decided_by == expert and decision.decided_as == "expert"
    assert "Nur-Sultan" in effective_answer(correction_for_expert.sample).aliases


def test_rejecting_the_correction_excludes_the_sample(correction_for_expert, expert):
    question = DecisionQuestion.objects.get(origin=QuestionOrigin.GROUND_TRUTH)
    services.submit_answer(question=question, acting_user=expert, option="B")
    correction_for_expert.refresh_from_db()
    assert correction_for_expert.status == CorrectionStatus.REJECTED
    assert effective_answer(correction_for_expert.sample).included is False
