"""Questions that need several experts: agreement decides, disagreement goes to the admin or the lead expert."""

import pytest
from django.urls import reverse

from apps.consultations import services
from apps.consultations.models import QuestionStatus
from apps.core.errors import Conflict

pytestmark = pytest.mark.django_db


def test_two_experts_who_disagree_send_the_question_to_the_lead_expert(make_question, make_user, client_for, admin):
    lead = make_user("lena_lead", "expert")
    first, second = make_user("ex1", "expert"), make_user("ex2", "expert")
    question = make_question(required_experts=2, lead_expert=lead)

    services.submit_answer(question=question, acting_user=first, option="B", comment="a year fixes it", confidence=4)
    question.refresh_from_db()
    assert question.status == QuestionStatus.OPEN
    # Independent answers: the second expert does not see the first one's answer while the question is open.
    page = client_for(second).get(f"/consultations/questions/{question.pk}/").content.decode()
    assert "a year fixes it" not in page

    services.submit_answer(question=question, acting_user=second, option="C", confidence=3)
    question.refresh_from_db()
    assert question.status == QuestionStatus.DISPUTED and question.decided_option is None
    # Once disputed, the experts see each other's answers, and no third answer is taken.
    assert "a year fixes it" in client_for(second).get(f"/consultations/questions/{question.pk}/").content.decode()
    with pytest.raises(Conflict, match="no longer open"):
        services.submit_answer(question=question, acting_user=lead, option="A")

    # An expert who is not the round's lead may not settle it; the lead may.
    assert client_for(first).post(f"/consultations/questions/{question.pk}/settle/", {"option": "B"}).status_code == 403
    assert question.pk in [q.pk for q in client_for(lead).get("/consultations/inbox/").context["disputed"]]
    panel = next(p for p in client_for(lead).get("/").context["panels"] if p.title == "Disagreements to settle")
    assert panel.count == 1
    response = client_for(lead).post(f"/consultations/questions/{question.pk}/settle/", {"option": "B", "note": "B keeps the item"})
    assert response.status_code == 302
    question.refresh_from_db()
    assert question.status == QuestionStatus.DECIDED and question.decided_option.key == "B"
    assert question.decided_by == lead and question.settlement_note == "B keeps the item"
    events = list(question.round.events.values_list("kind", flat=True))
    assert events.count("answer_submitted") == 2 and "disputed" in events and events[-1] == "decided"


def test_the_admin_settles_with_own_wording(make_question, make_user, admin):
    first, second = make_user("ex1", "expert"), make_user("ex2", "expert")
    question = make_question(required_experts=2)
    services.submit_answer(question=question, acting_user=first, option="A")
    services.submit_answer(question=question, acting_user=second, text="Keep it, but only with the year in the aliases")
    question.refresh_from_db()
    assert question.status == QuestionStatus.DISPUTED
    services.settle_question(question=question, acting_user=admin, text="Add the year to the question")
    question.refresh_from_db()
    assert question.decision_label == "Add the year to the question" and question.decided_by == admin


def test_two_experts_who_agree_decide_the_question(make_question, make_user):
    first, second = make_user("ex1", "expert"), make_user("ex2", "expert")
    question = make_question(required_experts=2)
    services.submit_answer(question=question, acting_user=first, option="B")
    services.submit_answer(question=question, acting_user=second, option="B", comment="same")
    question.refresh_from_db()
    assert question.status == QuestionStatus.DECIDED and question.decided_option.key == "B"
    assert question.decided_by is None  # the experts agreed; nobody had to settle


def test_a_submitted_answer_is_final_but_resubmitting_it_is_harmless(make_question, expert):
    question = make_question(required_experts=2)
    first = services.submit_answer(question=question, acting_user=expert, option="A")
    assert services.submit_answer(question=question, acting_user=expert, option="A").pk == first.pk
    with pytest.raises(Conflict, match="already submitted a different answer"):
        services.submit_answer(question=question, acting_user=expert, option="C")
    with pytest.raises(Conflict, match="already submitted"):
        services.save_answer_draft(question=question, acting_user=expert, option="C")


def test_the_autosave_that_follows_a_submit_changes_nothing_and_is_not_an_error(make_question, expert, client_for):
    # Clicking Submit blurs the field, whose change event autosaves the same answer a moment later: on a
    # question the submission decided, too.
    question = make_question(required_experts=1)
    submitted = services.submit_answer(question=question, acting_user=expert, option="A", comment="why")

    late = client_for(expert).post(reverse("consultations:question-autosave", args=[question.pk]),
                                   {"option": "A", "comment": "changed after"})

    assert late.status_code == 200 and "Your answer is submitted" in late.content.decode()
    submitted.refresh_from_db()
    assert submitted.option.key == "A" and submitted.comment == "why"
    with pytest.raises(Conflict, match="already submitted"):
        services.save_answer_draft(question=question, acting_user=expert, option="B")
