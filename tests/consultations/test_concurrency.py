"""Answers racing for the last place on a question: the question row lock lets exactly one through."""


import pytest

from apps.consultations import services
from apps.consultations.models import ExpertAnswer, QuestionStatus
from apps.core.errors import ApplicationError, InvalidInput
from tests.race import run_threads


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_experts_racing_for_a_one_expert_question_decide_it_once(make_question, make_user):
    question = make_question(required_experts=1)
    experts = [make_user(f"racer{i}", "expert") for i in range(4)]
    outcomes = []

    def answer(expert, key):
        try:
            services.submit_answer(question=question, acting_user=expert, option=key)
            outcomes.append("ok")
        except ApplicationError as exc:
            outcomes.append(str(exc))

    errors = run_threads([lambda e=e, k="ABCA"[i]: answer(e, k) for i, e in enumerate(experts)])
    assert not errors, errors
    assert outcomes.count("ok") == 1
    assert all("no longer open" in o for o in outcomes if o != "ok")
    question.refresh_from_db()
    assert question.status == QuestionStatus.DECIDED
    assert ExpertAnswer.objects.filter(question=question, submitted_at__isnull=False).count() == 1
    assert question.round.events.filter(kind="decided").count() == 1


@pytest.mark.django_db
def test_an_approver_cannot_give_a_rule_a_malformed_id(make_question, expert, admin):
    question = make_question()
    services.submit_answer(question=question, acting_user=expert, option="B")
    from apps.consultations.models import Round, RoundStatus

    Round.objects.filter(pk=question.round_id).update(status=RoundStatus.CODIFYING)
    draft = services.store_rule_draft(question=question, change="add", rule_id="ht-year", category="time",
                                      statement="Add the year.", examples=[], scope={})
    with pytest.raises(InvalidInput, match="lower-case letters"):
        services.approve_draft(draft=draft, acting_user=admin, rule_id="Has Spaces")
