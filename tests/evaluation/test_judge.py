"""The LLM judge through the real SDKs against the fake server, as VoiceBench runs it: open-ended responses rated
1-5 three times (mean x 20), short answers judged Yes/No three times (majority). Every sample is its own call
through apps.agents (role judge), linked from the item's score with its raw answer; a re-run is answered from
the cache; the Korean side is judged with the Korean prompt."""

import json

import pytest

from apps.agents.models import AgentCall, CallStatus
from apps.evaluation.judge import judge_item
from apps.evaluation.models import EvalItem, ItemScore
from apps.evaluation.services import import_responses


@pytest.fixture
def judged_run(english_run, response_file, settings):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}
    rows = [{"id": i.item_id, "response": {"sd-qa": "It is Canberra.", "mmsu": "The answer is B.",
                                           "commoneval": "My day was fine, thank you."}[i.subset]}
            for i in english_run.items.all()]
    import_responses(run=english_run, source=response_file("r.jsonl", rows))
    return english_run


def _user_text(body):
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


@pytest.mark.django_db
def test_an_open_ended_answer_gets_three_scores_and_their_mean(judged_run, fake_llm):
    for score in (4, 5, 3):
        fake_llm.reply({"score": score})
    item = judged_run.items.get(subset="commoneval")

    row = judge_item(item)

    assert row.method == "judge" and row.score == pytest.approx(4 / 5)  # mean 4, x 20 = 80
    assert row.detail["scores"] == [4, 5, 3]
    calls = list(row.judge_calls.select_related("agent_call"))
    assert [(c.sample, c.value, json.loads(c.raw_answer)) for c in calls] == [
        (0, "4", {"score": 4}), (1, "5", {"score": 5}), (2, "3", {"score": 3})]
    assert {c.agent_call.role for c in calls} == {"judge"} and {c.prompt_name for c in calls} == {"judge_open"}
    assert len({c.agent_call.input_hash for c in calls}) == 3  # three distinct inputs, not one cached answer
    body = fake_llm.requests[0]["body"]
    assert body["model"] == "gpt-4o-mini"
    text = _user_text(body)
    assert "Please evaluate the response on a scale of 1 to 5" in text
    assert "### [Instruction]: Tell me about your day." in text and "### [Response]: My day was fine, thank you." in text
    assert row.evaluator == "judge:judge_open" and row.version == "v1 openai:gpt-4o-mini"


@pytest.mark.django_db
@pytest.mark.parametrize(("votes", "score"), [(["Yes", "No", "yes"], 1.0), (["No", "no", "Yes"], 0.0)])
def test_a_short_answer_is_correct_when_most_of_three_judges_say_yes(judged_run, fake_llm, votes, score):
    for vote in votes:
        fake_llm.reply({"answer": vote})
    item = judged_run.items.get(question="What is the capital of Australia?")

    row = judge_item(item)

    assert row.score == score and row.detail["votes"] == [v.lower() for v in votes]
    text = _user_text(fake_llm.requests[0]["body"])
    assert "### Question\nWhat is the capital of Australia?" in text
    assert "### Reference answer\nCanberra" in text and "### Candidate answer\nIt is Canberra." in text
    assert [c.value for c in row.judge_calls.all()] == [v.lower() for v in votes]


@pytest.mark.django_db
def test_judging_again_is_answered_from_the_cache(judged_run, fake_llm):
    fake_llm.always({"score": 4})
    item = judged_run.items.get(subset="commoneval")
    judge_item(item)
    asked = len(fake_llm.requests)

    again = judge_item(EvalItem.objects.get(pk=item.pk))

    assert len(fake_llm.requests) == asked == 3
    assert {c.agent_call.status for c in again.judge_calls.all()} == {CallStatus.CACHED}
    assert ItemScore.objects.filter(item=item, method="judge").count() == 1


@pytest.mark.django_db
def test_an_unreadable_judge_answer_is_retried_once_then_needs_attention(judged_run, fake_llm):
    from apps.agents.services import AgentNeedsAttention

    fake_llm.reply({"score": 9}, times=2)  # outside 1-5: the retry carries the validation error
    item = judged_run.items.get(subset="commoneval")

    with pytest.raises(AgentNeedsAttention):
        judge_item(item)

    assert AgentCall.objects.filter(role="judge", status=CallStatus.INVALID).count() == 2
    assert not ItemScore.objects.filter(item=item).exists()


@pytest.mark.django_db
def test_the_korean_side_is_judged_with_the_korean_prompt(judged_run, fake_llm):
    from apps.evaluation.models import EvaluationRun

    EvaluationRun.objects.filter(pk=judged_run.pk).update(language="ko")
    fake_llm.always({"answer": "Yes"})
    item = EvalItem.objects.select_related("run").get(run=judged_run, question="How many legs does a spider have?")

    row = judge_item(item)

    text = _user_text(fake_llm.requests[0]["body"])
    assert "### 질문" in text and "### 참조 답변\neight" in text
    assert row.evaluator == "judge:judge_qa_ko"


@pytest.mark.django_db
def test_the_judge_can_be_an_anthropic_model(judged_run, fake_llm, settings):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("anthropic", "claude-sonnet-4-5")}
    for score in (2, 3, 4):
        fake_llm.reply({"score": score})

    row = judge_item(judged_run.items.get(subset="commoneval"))

    assert row.score == pytest.approx(3 / 5) and row.version == "v1 anthropic:claude-sonnet-4-5"
    assert {r["api"] for r in fake_llm.requests} == {"anthropic"} and len(fake_llm.requests) == 3
