"""The scripted demo provider answers the judge, so the demo scores a model without a key: a short answer is
judged Yes when it contains the reference or an alias (English and Korean prompts), an open-ended answer gets a
1-5 score by its length; the answers come through the real SDK and validate like a model's."""

import pytest

from apps.evaluation.judge import judge_item
from apps.evaluation.models import EvalItem, EvaluationRun
from apps.pages import demo_provider


@pytest.fixture
def demo_judge(fake_llm, settings):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}
    fake_llm.always(demo_provider.answer)
    return fake_llm


def _answer(run, question, response):
    item = EvalItem.objects.select_related("run").get(run=run, question=question)
    item.response = response
    item.save(update_fields=["response"])
    return item


@pytest.mark.django_db
@pytest.mark.parametrize(("response", "votes"), [("It is Canberra.", ["yes"] * 3), ("Sydney, of course.", ["no"] * 3)])
def test_the_demo_judge_says_yes_when_the_reference_is_in_the_answer(english_run, demo_judge, response, votes):
    row = judge_item(_answer(english_run, "What is the capital of Australia?", response))
    assert row.detail["votes"] == votes


@pytest.mark.django_db
def test_the_demo_judge_reads_the_korean_prompt_and_aliases(english_run, demo_judge):
    EvaluationRun.objects.filter(pk=english_run.pk).update(language="ko")
    item = _answer(english_run, "How many legs does a spider have?", "거미 다리는 여덟 개예요.")
    EvalItem.objects.filter(pk=item.pk).update(answer="8개", aliases=["여덟 개"])
    item.refresh_from_db()

    assert judge_item(item).score == 1.0


@pytest.mark.django_db
@pytest.mark.parametrize(("response", "score"), [("", 1), ("Fine.", 2), ("It was a long and pleasant day outside.", 4)])
def test_the_demo_judge_scores_open_answers_by_length(english_run, demo_judge, response, score):
    row = judge_item(_answer(english_run, "Tell me about your day.", response))
    assert row.detail["scores"] == [score] * 3


@pytest.mark.django_db
def test_the_demo_judge_answers_all_three_samples_of_one_request(english_run, demo_judge):
    row = judge_item(_answer(english_run, "Who wrote Hamlet?", "셰익스피어, William Shakespeare."))

    assert len(demo_judge.requests) == 1 and demo_judge.requests[0]["body"]["n"] == 3
    assert row.detail["votes"] == ["yes"] * 3 and row.judge_model == "openai:gpt-4o-mini"
    assert len({c.agent_call_id for c in row.judge_calls.all()}) == 1
