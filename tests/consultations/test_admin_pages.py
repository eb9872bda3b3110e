"""The admin's pages: rounds, a round with its statistics and history, starting a round, and what the pages
say when no provider is configured."""

import pytest

from apps.consultations import services
from apps.consultations.models import Round
from apps.core.errors import Conflict, InvalidInput

pytestmark = pytest.mark.django_db


def test_an_admin_opens_a_round_and_sees_that_no_provider_is_configured(rulebooks, samples, admin, expert, client_for, django_capture_on_commit_callbacks):
    client = client_for(admin)
    assert client.get("/consultations/").status_code == 302
    listing = client.get("/consultations/rounds/")
    assert listing.status_code == 200 and "Open a round" in listing.content.decode()
    book = rulebooks["ko-normalization"]
    response = client.post("/consultations/rounds/", {"rulebook": book.pk, "subsets": "mmsu, ifeval", "task_types": "", "max_questions": "2",
                                                   "lead_expert": expert.pk})
    round = Round.objects.get(rulebook=book)
    assert response.status_code == 302 and response["Location"] == f"/consultations/rounds/{round.pk}/"
    assert round.scope == {"subsets": ["mmsu", "ifeval"], "task_types": []} and round.max_questions == 2
    assert round.lead_expert == expert
    page = client.get(f"/consultations/rounds/{round.pk}/").content.decode()
    assert "No anthropic provider is configured" in page and "Start analysis" in page
    assert "Round 1 opened on ko-normalization v3" in page
    # Starting the analysis without a provider fails visibly on the job, and nothing pretends to have run.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/consultations/rounds/{round.pk}/analyse/")
    round.refresh_from_db()
    from apps.jobs.models import Job, JobStatus

    job = Job.objects.get(params__round=round.pk)
    assert job.status == JobStatus.FAILED and "No anthropic provider is configured" in job.message
    assert not round.analyses.exists()
    version_page = client.get("/consultations/rulebooks/ko-normalization/v3/").content.decode()
    assert "Analyses made under this version" in version_page and "653 of 10,083" in version_page


def test_the_round_limit_on_questions_is_enforced(make_question, rulebooks, settings):
    question = make_question()
    round = question.round
    Round.objects.filter(pk=round.pk).update(max_questions=2)
    make_question(round=round)
    with pytest.raises(Conflict, match="maximum of 2 questions"):
        make_question(round=round)
    with pytest.raises(InvalidInput, match="between 1 and"):
        services.create_round(rulebook=rulebooks["ko-normalization"], max_questions=settings.CONSULTATION_MAX_QUESTIONS + 1)


def test_a_question_needs_two_to_four_options_and_a_known_recommendation(rulebooks, admin):
    round = services.create_round(rulebook=rulebooks["ko-hypertranslation"], acting_user=admin)
    one = [{"key": "A", "label": "only", "effect": "x"}]
    with pytest.raises(InvalidInput, match="two to four"):
        services.create_question(round=round, title="t", decision_needed="d", options=one)
    two = one + [{"key": "B", "label": "other", "effect": "y"}]
    with pytest.raises(InvalidInput, match="not one of the options"):
        services.create_question(round=round, title="t", decision_needed="d", options=two, recommendation="C")


def test_an_admin_withdraws_a_question_nobody_can_answer_and_the_round_can_close(make_question, admin, expert, client_for):
    question = make_question()
    assert client_for(expert).post(f"/consultations/questions/{question.pk}/withdraw/", {"reason": "x"}).status_code == 403
    with pytest.raises(Conflict, match="Q1 still wait"):
        services.close_round(round=question.round, acting_user=admin)
    client_for(admin).post(f"/consultations/questions/{question.pk}/withdraw/", {"reason": "badly put"})
    question.refresh_from_db()
    assert question.status == "withdrawn" and question.settlement_note == "badly put"
    assert services.close_round(round=question.round, acting_user=admin).status == "codifying"
    assert question.round.events.filter(kind="withdrawn").exists()
    # Nothing was decided, so no rule: the round closes and the rulebook keeps version 1.
    assert services.publish_round_version(round=question.round, acting_user=admin) is None
    question.round.refresh_from_db()
    assert question.round.status == "closed" and question.round.rulebook.latest_version().number == 1


def test_a_round_with_a_max_questions_that_is_not_a_number_is_refused_by_name(rulebooks, admin, client_for):
    book = rulebooks["ko-normalization"]
    page = client_for(admin).post("/consultations/rounds/", {"rulebook": book.pk, "max_questions": "two"},
                                  follow=True).content.decode()
    assert "max_questions must be a whole number" in page and not Round.objects.exists()
